import Foundation
import RequestKit

extension RecordingTransport: WebSocketOpening {
    /// Opens a WebSocket as the mode says: replayed from the cassette's handshake entry with no network (its
    /// recorded messages delivered in order, each message sent checked against the recorded ones in order), or
    /// opened on the base transport, which must be the native one, with the handshake recorded as an entry and the
    /// messages both ways as its `_webSocketMessages`, as browsers' HAR export keeps them.
    ///
    /// ```swift
    /// let socket = try await WebSocket {
    ///     Url("ws://127.0.0.1:8080/websocket/echo")
    ///     Using(try RecordingTransport(cassette: cassettes.appendingPathComponent("echo.har"), mode: .recordOnce))
    /// }.connect()
    /// ```
    /// - Throws: `RequestError`: a handshake the cassette does not hold (replay), a base transport that cannot open a
    ///   WebSocket (recording), the handshake's failures as the base transport's or as recorded.
    package func openWebSocket(
        _ checked: WebSocket.Checked, request: BuiltRequest
    ) async throws(RequestError) -> WebSocket.Socket {
        if behavior == .passthrough {
            return try await WebSocket.opening(base).openWebSocket(checked, request: request)
        }
        let sent = Self.handshake(request, isSecure: checked.isSecure)
        if let entry = try lookUp(sent) { return try replayWebSocket(entry, url: sent.url) }
        return try await recordWebSocket(checked, request: request, sent: sent)
    }

    /// The handshake as the cassette keeps it: a GET of the `ws://` or `wss://` URL with the definition's fields
    /// (not those the handshake adds, whose key is new each time).
    private static func handshake(_ request: BuiltRequest, isSecure: Bool) -> RecordedRequest {
        var url = request.url
        if var components = URLComponents(url: url, resolvingAgainstBaseURL: true) {
            components.scheme = isSecure ? "wss" : "ws"
            url = components.url ?? url
        }
        return RecordedRequest(method: "GET", url: url, headers: HTTPHeaders(request.fieldsAsSent))
    }

    /// Opens the socket on the base transport, records the handshake, and returns a socket whose messages are
    /// recorded as they go.
    private func recordWebSocket(
        _ checked: WebSocket.Checked, request: BuiltRequest, sent: RecordedRequest
    ) async throws(RequestError) -> WebSocket.Socket {
        let opening = try WebSocket.opening(base)
        let started = Date()
        let start = ContinuousClock.now
        let socket: WebSocket.Socket
        do {
            socket = try await opening.openWebSocket(checked, request: request)
        } catch {
            let elapsed = Self.milliseconds(start.duration(to: .now))
            let timing = HAREntry.Timing(started: started, head: elapsed, total: elapsed)
            if error.webSocketFailure == .handshakeRefused, let response = error.response {
                try record(
                    sent, RecordedResponse(status: response.statusCode, headers: response.headers, body: response.body),
                    chunks: nil, failure: nil, timing: timing)
                throw error
            }
            throw try record(failure: error, of: sent, started: started, after: start.duration(to: .now))
        }
        let elapsed = Self.milliseconds(start.duration(to: .now))
        let index = try record(
            sent, RecordedResponse(status: 101, headers: socket.handshakeHeaders), chunks: nil, failure: nil,
            timing: HAREntry.Timing(started: started, head: elapsed, total: elapsed))
        let recording = RecordedWebSocketConnection(socket: socket) { [cassette] (messages) throws(RequestError) in
            let written = cassette.withLock { cassette -> Result<Void, RequestError> in
                do throws(RequestError) {
                    return .success(try cassette.recordWebSocketMessages(messages, at: index))
                } catch {
                    return .failure(error)
                }
            }
            try written.get()
        }
        return WebSocket.Socket(
            connection: recording, subprotocol: socket.subprotocol, handshakeHeaders: socket.handshakeHeaders,
            isCompressed: socket.isCompressed, metrics: socket.metrics)
    }

    /// The socket a recorded handshake opens: its `101` answer and its messages, or the refusal or failure
    /// recorded.
    private func replayWebSocket(_ entry: HAREntry, url: URL) throws(RequestError) -> WebSocket.Socket {
        guard let response = try entry.replayedResponse(url: url, sideFiles: sideFiles) else {
            throw entry.replayedFailure(url: url) ?? ReplayFailure.error("a recorded failure has no kind")
        }
        guard response.statusCode == 101 else {
            throw .webSocket(
                .handshakeRefused, "the server refused the WebSocket handshake with \(response.status)",
                response: response)
        }
        var messages: [ReplayedWebSocketConnection.Event] = []
        for recorded in entry.webSocketMessages ?? [] {
            messages.append(ReplayedWebSocketConnection.Event(isSent: recorded.isSent, message: try recorded.message()))
        }
        let headers = response.headers
        let extensions = headers.values(for: "Sec-WebSocket-Extensions").joined(separator: ",").lowercased()
        return WebSocket.Socket(
            connection: ReplayedWebSocketConnection(messages: messages, cassette: cassetteURL.lastPathComponent),
            subprotocol: headers["Sec-WebSocket-Protocol"], handshakeHeaders: headers,
            isCompressed: extensions.contains("permessage-deflate"))
    }
}
