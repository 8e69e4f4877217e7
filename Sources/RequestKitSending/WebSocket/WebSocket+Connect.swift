import Foundation
import RequestKitFeatures
import RequestKitModel
import RequestKitNativeTransport
import RequestKitWebSocket

extension WebSocket {
    /// Connects: the opening handshake over HTTP/1.1 (``Timeout`` bounds connecting and the handshake), on the
    /// native transport (the one ``Using`` names, or `NativeTransport.shared`; a `RecordingTransport` records the
    /// connection's messages in its cassette or replays them), through the proxy and with the
    /// TLS configuration it has, with the cookies of the jar ``UseCookies`` names; the cookies the server sets
    /// in its answer go into that jar. The handshake is an attempt as a request's is: its monitors (``Monitor``) see
    /// it start and get its `101` answer (or fail), then finish with its metrics, which the socket
    /// (``Socket/metrics``) and a failure's error (``RequestError/metrics``) keep.
    ///
    /// ```swift
    /// let socket = try await WebSocket {
    ///     Url("wss://api.example.com/feed")
    ///     Header.Authorization(.bearer(token))
    ///     Timeout(10)
    /// }.connect()
    /// ```
    /// - Returns: The open socket.
    /// - Throws: ``RequestError``: `.invalidRequest` for a definition that cannot be a handshake, or one whose
    ///   ``Using`` names a transport that cannot open a WebSocket (`URLSessionTransport`, say); the connection's
    ///   failures as a request's (`.connectionFailed`, `.tls`, `.timedOut`, `.cancelled`); `.webSocket` with
    ///   ``RequestError/WebSocketFailure/handshakeRefused`` (and the response) when the server answers another
    ///   status than 101, or ``RequestError/WebSocketFailure/invalidHandshake`` for a 101 that breaks the
    ///   handshake's rules.
    public func connect() async throws(RequestError) -> Socket {
        let checked = try checked()
        var request = checked.request
        let jar = checked.parts[option: CookieJarKey.self]
        if let jar, let cookies = jar.cookieHeader(for: request.url, adding: request.value(forField: "Cookie")) {
            request = request.settingField("Cookie", cookies)
        }
        let transport = try Self.opening(checked.parts.transport)
        let monitors = checked.parts[option: EventMonitorsKey.self]
        let shown = monitors.monitoredEvents.isEmpty ? nil : TransferRequest.Head.built(request).urlRequest
        if let shown {
            for monitor in monitors where monitor.monitoredEvents.contains(.requestStarted) {
                monitor.requestStarted(shown, attempt: 1)
            }
        }
        let start = monitors.isEmpty ? 0 : DispatchTime.now().uptimeNanoseconds
        let opened: Result<Socket, RequestError>
        do throws(RequestError) {
            opened = .success(try await transport.openWebSocket(checked, request: request))
        } catch {
            opened = .failure(error)
        }
        if let shown {
            let duration = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            let outcome = opened.map { socket in
                var answer = Response(status: 101, headers: socket.handshakeHeaders, url: request.url)
                answer.metrics = socket.metrics
                return answer
            }
            for monitor in monitors {
                switch outcome {
                case .success(let answer) where monitor.monitoredEvents.contains(.responseReceived):
                    monitor.responseReceived(answer, for: shown, duration: duration, attempt: 1)
                case .failure(let error) where monitor.monitoredEvents.contains(.requestFailed):
                    monitor.requestFailed(error, for: shown, duration: duration, attempt: 1)
                default: break
                }
            }
            monitors.reportFinished(outcome, of: shown)
        }
        let socket = try opened.get()
        if let jar {
            let cookies = socket.handshakeHeaders.cookies
            if !cookies.isEmpty { jar.store(cookies, from: request.url) }
        }
        return socket
    }

    /// The transport that opens the socket: the one the definition names, which must be able to open one, or the
    /// shared native transport.
    ///
    /// - Throws: ``RequestError`` of kind `.invalidRequest` (``RequestProblem/Kind/invalidComponent``) for a
    ///   transport that cannot open a WebSocket: it is never passed over.
    package static func opening(_ transport: (any Transport)?) throws(RequestError) -> any WebSocketOpening {
        guard let transport else { return NativeTransport.shared }
        guard let opening = transport as? any WebSocketOpening else {
            throw RequestError.invalidRequest([
                RequestProblem(
                    .invalidComponent,
                    "a WebSocket needs the native transport, and Using(\(type(of: transport))) names one that cannot "
                        + "open it: use NativeTransport, or a RecordingTransport over it")
            ])
        }
        return opening
    }
}
