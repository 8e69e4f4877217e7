import Foundation

/// Writes one ``TestResponse`` to a connection, adding the framing, `Date` and `Connection` headers.
///
/// ```swift
/// let outcome = ResponseSender(socket: socket, request: request).send(response, keepAlive: true)
/// ```
struct ResponseSender {
    /// What happened to the connection after sending.
    enum Outcome: Equatable {
        /// The response was complete and the connection can serve another request.
        case keepOpen
        /// The response was sent (or deliberately cut) and the connection must close.
        case close
        /// The client went away before the response was complete.
        case clientGone
    }

    let socket: ConnectionStream
    let request: TestRequest
    /// Runs once, just before the bytes that complete the response are written (or after sending, for bodies
    /// whose end the server cannot see coming).
    var beforeLastBytes: @Sendable () -> Void = {}

    /// Sends `response`; `keepAlive` says whether the connection may stay open afterwards.
    func send(_ response: TestResponse, keepAlive: Bool) -> Outcome {
        if let delay = response.delay, !ConnectionWatch.wait(delay, on: socket) {
            return .clientGone
        }
        let isHead = request.method == "HEAD"
        let isHTTP10 = request.httpVersion == "HTTP/1.0"
        var closeAfter = !keepAlive || response.header("Connection").map { $0.lowercased().contains("close") } == true
        var headers = response.headers
        let bodyAllowed = !HTTPStatusReason.forbidsBody(response.status)
        let framing: TestResponseWriter.Framing
        switch response.body {
        case .raw(let write):
            let writer = TestResponseWriter(socket: socket, framing: .raw, discardsBody: false)
            return run(write, with: writer, closeAfter: true)
        case .data(let data):
            framing = .identity
            if let declared = response.header("Content-Length") {
                if declared != String(data.count) { closeAfter = true }
            } else if bodyAllowed {
                headers.append(("Content-Length", String(data.count)))
            }
        case .chunked, .stream:
            if response.header("Content-Length") != nil || response.header("Transfer-Encoding") != nil {
                framing = response.header("Content-Length") != nil ? .identity : .chunked
            } else if isHTTP10 {
                framing = .identity
                closeAfter = true
            } else {
                framing = .chunked
                if bodyAllowed { headers.append(("Transfer-Encoding", "chunked")) }
            }
        }
        if response.header("Date") == nil {
            headers.append(("Date", HTTPDate.string(from: Date())))
        }
        if response.header("Connection") == nil {
            if closeAfter {
                headers.append(("Connection", "close"))
            } else if isHTTP10 {
                headers.append(("Connection", "keep-alive"))
            }
        }
        var head = "HTTP/1.1 \(response.status) \(response.reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        let discardsBody = isHead || !bodyAllowed
        let writer = TestResponseWriter(
            socket: socket, framing: framing, discardsBody: discardsBody, beforeLastBytes: beforeLastBytes)
        var packet = Data(head.utf8)
        if case .data(let data) = response.body, discardsBody || data.count <= 64 * 1024 {
            if !discardsBody { packet.append(data) }
            beforeLastBytes()
            do { try writer.writeRaw(packet) } catch { return .clientGone }
            return closeAfter ? .close : .keepOpen
        }
        do { try writer.writeRaw(packet) } catch { return .clientGone }
        writer.state.withLock { $0.framing = framing }
        switch response.body {
        case .data(let data):
            return run(
                { writer in
                    beforeLastBytes()
                    try writer.write(data)
                }, with: writer, closeAfter: closeAfter)
        case .chunked(let chunks, let interval, let trailers):
            return run(
                { writer in
                    for (index, chunk) in chunks.enumerated() {
                        if index > 0, let interval { try writer.sleep(for: interval) }
                        try writer.write(chunk)
                    }
                    try writer.finish(trailers: trailers)
                }, with: writer, closeAfter: closeAfter)
        case .stream(let write):
            if discardsBody { return closeAfter ? .close : .keepOpen }
            let declared = response.header("Content-Length").flatMap(Int.init)
            let outcome = run(write, with: writer, closeAfter: closeAfter)
            if outcome == .keepOpen, framing == .identity, writer.state.withLock({ $0.bytesWritten }) != declared {
                return .close
            }
            return outcome
        case .raw:
            return .close
        }
    }

    /// Runs a body-writing closure and works out the connection's fate from the writer's state.
    private func run(
        _ write: (TestResponseWriter) throws -> Void, with writer: TestResponseWriter, closeAfter: Bool
    ) -> Outcome {
        var failed = false
        do {
            try write(writer)
        } catch {
            failed = true
        }
        let state = writer.state.withLock { $0 }
        if state.clientDisconnected { return .clientGone }
        if state.isClosed || failed || state.framing == .raw { return .close }
        if state.framing == .chunked && !state.isFinished {
            do { try writer.finish() } catch { return .clientGone }
        }
        return closeAfter ? .close : .keepOpen
    }
}
