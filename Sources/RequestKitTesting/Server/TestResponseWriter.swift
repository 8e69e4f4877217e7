import Foundation

/// Writes a streamed response body straight to the client's socket.
///
/// A writer is handed to ``TestResponse/Body/stream(_:)`` and ``TestResponse/Body/raw(_:)`` closures. Writes are
/// unbuffered: each call has reached the socket when it returns. Every throwing method throws
/// ``TestResponseWriter/ClientDisconnected`` once the client has gone away, which the server counts in
/// ``TestServer/Stats/abortedRequests``.
///
/// ```swift
/// server.route("/ticks") { _ in
///     TestResponse(headers: [("Content-Type", "text/plain")], body: .stream { writer in
///         for tick in 1...3 {
///             try writer.write("tick \(tick)\n")
///             try writer.sleep(for: .milliseconds(100))
///         }
///     })
/// }
/// ```
public struct TestResponseWriter: Sendable {
    /// Thrown by writer methods when the client has closed the connection.
    ///
    /// ```swift
    /// do { try writer.write("late") } catch is TestResponseWriter.ClientDisconnected { return }
    /// ```
    public struct ClientDisconnected: Error, CustomStringConvertible {
        /// Creates the error, for handlers that want to end a stream the same way the writer does.
        ///
        /// ```swift
        /// guard writer.isClientConnected else { throw TestResponseWriter.ClientDisconnected() }
        /// ```
        public init() {}

        /// A sentence describing the failure.
        ///
        /// ```swift
        /// print(TestResponseWriter.ClientDisconnected())
        /// ```
        public var description: String { "the client closed the connection before the response was complete" }
    }

    enum Framing: Sendable {
        case chunked
        case identity
        case raw
    }

    struct State: Sendable {
        var framing: Framing
        var discardsBody: Bool
        var bytesWritten = 0
        var isFinished = false
        var isClosed = false
        var clientDisconnected = false
    }

    let channel: ResponseChannel
    let state: Locked<State>
    private let beforeLastBytes: @Sendable () -> Void

    init(
        channel: ResponseChannel, framing: Framing, discardsBody: Bool,
        beforeLastBytes: @escaping @Sendable () -> Void = {}
    ) {
        self.channel = channel
        self.state = Locked(State(framing: framing, discardsBody: discardsBody))
        self.beforeLastBytes = beforeLastBytes
    }

    /// Sends `data` as body bytes; with chunked framing it becomes one chunk (an empty `data` sends nothing).
    ///
    /// ```swift
    /// try writer.write(Data([0x01, 0x02]))
    /// ```
    /// - Throws: ``ClientDisconnected`` when the client has gone away.
    public func write(_ data: Data) throws {
        let (framing, discards) = try state.withLock { state -> (Framing, Bool) in
            if state.clientDisconnected || state.isClosed { throw ClientDisconnected() }
            state.bytesWritten += data.count
            return (state.framing, state.discardsBody || state.isFinished)
        }
        guard !discards, !data.isEmpty else { return }
        if framing == .chunked {
            var chunk = Data(String(data.count, radix: 16).utf8)
            chunk.append(contentsOf: [13, 10])
            chunk.append(data)
            chunk.append(contentsOf: [13, 10])
            try send(chunk)
        } else {
            try send(data)
        }
    }

    /// Sends `text` encoded as UTF-8; see ``write(_:)-(Data)``.
    ///
    /// ```swift
    /// try writer.write("data: hello\n\n")
    /// ```
    /// - Throws: ``ClientDisconnected`` when the client has gone away.
    public func write(_ text: String) throws {
        try write(Data(text.utf8))
    }

    /// Sends `data` exactly as given, bypassing chunked framing, to produce malformed or hand-made responses.
    ///
    /// ```swift
    /// try writer.writeRaw(Data("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort".utf8))
    /// ```
    /// - Throws: ``ClientDisconnected`` when the client has gone away.
    public func writeRaw(_ data: Data) throws {
        try state.withLock { state in
            if state.clientDisconnected || state.isClosed { throw ClientDisconnected() }
            state.framing = .raw
        }
        try send(data)
    }

    /// Confirms that everything written so far has reached the socket and the client is still connected.
    ///
    /// Writes are never buffered by the server, so there is nothing to push out; what `flush()` adds is an early,
    /// cheap check for a client that has gone away, so a streaming loop can stop before its next write.
    ///
    /// ```swift
    /// try writer.write("data: tick\n\n")
    /// try writer.flush()
    /// ```
    /// - Throws: ``ClientDisconnected`` when the client has gone away.
    public func flush() throws {
        guard isClientConnected else { throw ClientDisconnected() }
    }

    /// Ends a chunked body now, sending the last chunk with `trailers`; later writes are ignored.
    ///
    /// Without this call the server ends the body itself, without trailers, when the closure returns.
    ///
    /// ```swift
    /// try writer.finish(trailers: [("X-Checksum", "abc")])
    /// ```
    /// - Throws: ``ClientDisconnected`` when the client has gone away.
    public func finish(trailers: [(name: String, value: String)] = []) throws {
        let shouldSend = try state.withLock { state -> Bool in
            if state.clientDisconnected || state.isClosed { throw ClientDisconnected() }
            defer { state.isFinished = true }
            return state.framing == .chunked && !state.isFinished && !state.discardsBody
        }
        guard shouldSend else { return }
        beforeLastBytes()
        var text = "0\r\n"
        for (name, value) in trailers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        try send(Data(text.utf8))
    }

    /// Waits for `duration` while watching the connection, returning early by throwing if the client leaves.
    ///
    /// ```swift
    /// try writer.sleep(for: .milliseconds(250))
    /// ```
    /// - Throws: ``ClientDisconnected`` when the client closes the connection during the wait.
    public func sleep(for duration: Duration) throws {
        if !channel.sleep(for: duration) {
            state.withLock { $0.clientDisconnected = true }
            throw ClientDisconnected()
        }
    }

    /// Whether the client still has the connection open, checked without reading anything.
    ///
    /// ```swift
    /// while writer.isClientConnected { try writer.write("."); try writer.sleep(for: .seconds(1)) }
    /// ```
    public var isClientConnected: Bool {
        if state.withLock({ $0.clientDisconnected || $0.isClosed }) { return false }
        if channel.isPeerGone {
            state.withLock { $0.clientDisconnected = true }
            return false
        }
        return true
    }

    /// Closes the connection at once, without ending the body, to simulate a server that dies mid-response.
    ///
    /// ```swift
    /// try writer.write("partial")
    /// writer.close()
    /// ```
    public func close() {
        state.withLock { $0.isClosed = true }
        channel.cut()
    }

    private func send(_ data: Data) throws {
        guard channel.send(data) else {
            state.withLock { $0.clientDisconnected = true }
            throw ClientDisconnected()
        }
    }
}
