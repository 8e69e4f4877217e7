import Foundation

/// Serves the requests of one TCP connection, one after another, on the connection's own thread.
///
/// ```swift
/// HTTPConnection(core: core, socket: socket, id: 1).run()
/// ```
struct HTTPConnection {
    let core: ServerCore
    let socket: ConnectionStream
    let id: Int
    let reader: ConnectionReader

    init(core: ServerCore, socket: ConnectionStream, id: Int) {
        self.core = core
        self.socket = socket
        self.id = id
        self.reader = ConnectionReader(socket: socket, isStopping: { core.isStopped })
    }

    /// Reads and answers requests until the connection should close; the caller closes the socket.
    func run() {
        var served = 0
        var idleTimeout = core.configuration.readTimeout
        while serveOne(idleTimeout: idleTimeout, servedBefore: served) {
            served += 1
            idleTimeout = core.configuration.keepAliveTimeout
        }
        lingeringClose()
    }

    /// Serves one request; returns whether the connection stays open for another.
    private func serveOne(idleTimeout: Duration, servedBefore served: Int) -> Bool {
        let head: HTTPRequestHead
        do {
            head = try HTTPRequestHead.read(from: reader, configuration: core.configuration, idleTimeout: idleTimeout)
        } catch let error as HTTPRequestError {
            core.requestRejected()
            sendError(error)
            return false
        } catch {
            return false
        }
        let receivedAt = ContinuousClock.now
        core.requestStarted()
        let body: Data
        let trailers: [(name: String, value: String)]
        do {
            (body, trailers) = try readBody(for: head)
        } catch let error as HTTPRequestError {
            core.requestRejected()
            core.requestEnding()
            sendError(error)
            return false
        } catch {
            core.requestEnding()
            core.requestAborted()
            return false
        }
        let request = TestRequest(
            method: head.method, target: head.target, headers: head.headers, body: body,
            httpVersion: head.httpVersion, trailers: trailers, connectionID: id, receivedAt: receivedAt)
        core.requestReceived(request)
        let response = core.response(for: request)
        let limitReached = core.configuration.maxRequestsPerConnection.map { served + 1 >= $0 } ?? false
        let keepAlive = head.wantsKeepAlive && !limitReached && !core.isStopped
        let ending = OnceAction { [core] in core.requestEnding() }
        let outcome = ResponseSender(socket: socket, request: request, beforeLastBytes: ending.run)
            .send(response, keepAlive: keepAlive)
        ending.run()
        if outcome == .clientGone { core.requestAborted() }
        return outcome == .keepOpen
    }

    private func readBody(for head: HTTPRequestHead) throws -> (Data, [(name: String, value: String)]) {
        if head.expectsContinue {
            do {
                try socket.sendAll(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            } catch {
                throw ConnectionEnd.closed
            }
        }
        let timeout = core.configuration.readTimeout
        do {
            switch head.framing {
            case .none:
                return (Data(), [])
            case .length(let length):
                return (Data(try reader.read(count: length, timeout: timeout)), [])
            case .chunked:
                return try ChunkedBodyDecoder(reader: reader, configuration: core.configuration).decode()
            }
        } catch ConnectionEnd.timedOut {
            throw HTTPRequestError(status: 408, message: "the request body did not arrive in time")
        }
    }

    private func sendError(_ error: HTTPRequestError) {
        let response = TestResponse.text(error.message + "\n", status: error.status)
        let request = TestRequest(method: "GET", target: "/")
        _ = ResponseSender(socket: socket, request: request).send(response, keepAlive: false)
    }

    /// Stops sending, then reads and discards what the client still sends (for up to a second) so that closing
    /// does not reset the connection before the client has read the last response.
    private func lingeringClose() {
        socket.shutdownWrite()
        Self.discardIncoming(on: socket.socket, isStopping: { core.isStopped })
    }

    /// Reads and discards (as raw bytes, TLS or not) what the client still sends, for up to a second, until it
    /// closes its side.
    static func discardIncoming(on socket: SocketDescriptor, isStopping: () -> Bool) {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(1)
        while clock.now < deadline && !isStopping() {
            switch socket.waitForReadable(milliseconds: 50) {
            case .timedOut: continue
            case .hungUp: return
            case .readable:
                let received = withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 1) {
                    socket.receive(into: $0)
                }
                guard let received, received > 0 else { return }
            }
        }
    }
}
