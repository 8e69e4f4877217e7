#if canImport(CNghttp2) && os(Linux)
import Foundation
import Glibc

/// An h2c server on 127.0.0.1 that breaks the protocol on purpose: each accepted connection runs a script of raw
/// frames (``HTTP2FrameBytes``) against the client, over a blocking socket on a thread of its own. It records what the
/// client said back: the error codes of its `GOAWAY` and `RST_STREAM` frames.
///
/// ```swift
/// let server = try ScriptedHTTP2Server { connection, index in
///     guard let stream = connection.nextRequest() else { return }
///     connection.send(HTTP2FrameBytes.frame(HTTP2FrameBytes.data, stream: stream, payload: .init(repeating: 0, count: 20_000)))
///     connection.readUntilClosed()
/// }
/// ```
final class ScriptedHTTP2Server: @unchecked Sendable {
    // Safe: `record` is only touched while holding `lock`; the rest is set before the thread starts.

    /// What the clients sent back, over every connection.
    struct Record: Sendable {
        var connections = 0
        var requests = 0
        var goAwayCodes: [UInt32] = []
        var resetCodes: [UInt32] = []
    }

    /// One accepted connection, as its script sees it.
    final class Connection {
        let descriptor: Int32
        private let server: ScriptedHTTP2Server
        private var buffer: [UInt8] = []
        private var hasPreface = false

        init(descriptor: Int32, server: ScriptedHTTP2Server) {
            self.descriptor = descriptor
            self.server = server
        }

        /// Writes `bytes` whole; false when the client is gone.
        @discardableResult
        func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        /// Reads frames until the client opens a stream, and returns its id; nil when the client closes first.
        func nextRequest() -> UInt32? {
            while true {
                while let frame = nextFrame() {
                    if frame.type == HTTP2FrameBytes.headers {
                        server.lock.withLock { server.record.requests += 1 }
                        return frame.stream
                    }
                }
                guard fill() else { return nil }
            }
        }

        /// Reads until the client closes the connection (or goes quiet for ten seconds), recording what it says.
        func readUntilClosed() {
            while true {
                while nextFrame() != nil {}
                guard fill() else { return }
            }
        }

        private func fill() -> Bool {
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return false }
            buffer += chunk[0..<count]
            return true
        }

        /// The next whole frame buffered from the client (after its preface), noting `GOAWAY` and `RST_STREAM`.
        private func nextFrame() -> (type: UInt8, stream: UInt32, payload: [UInt8])? {
            if !hasPreface {
                guard buffer.count >= 24 else { return nil }
                buffer.removeFirst(24)
                hasPreface = true
            }
            guard buffer.count >= 9 else { return nil }
            let length = Int(buffer[0]) << 16 | Int(buffer[1]) << 8 | Int(buffer[2])
            guard buffer.count >= 9 + length else { return nil }
            let type = buffer[3]
            let stream = Self.word(buffer, at: 5) & 0x7fff_ffff
            let payload = Array(buffer[9..<(9 + length)])
            buffer.removeFirst(9 + length)
            if type == HTTP2FrameBytes.goAway, payload.count >= 8 {
                server.lock.withLock { server.record.goAwayCodes.append(Self.word(payload, at: 4)) }
            }
            if type == HTTP2FrameBytes.rstStream, payload.count >= 4 {
                server.lock.withLock { server.record.resetCodes.append(Self.word(payload, at: 0)) }
            }
            return (type, stream, payload)
        }

        private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
            bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var record = Record()
    private let script: @Sendable (Connection, Int) -> Void

    private let settings: [(UInt16, UInt32)]

    /// Listens on a free port; each connection opens with `SETTINGS` of `settings` (id, value), then `script` runs
    /// with its index (1 for the first), and the connection closes when it returns.
    init(
        settings: [(UInt16, UInt32)] = [], script: @escaping @Sendable (Connection, Int) -> Void
    ) throws {
        (listener, port) = try LoopbackListener.open(backlog: 16)
        self.settings = settings
        self.script = script
        Thread.detachNewThread { [self] in serve() }
    }

    /// What the clients sent back so far.
    var recorded: Record { lock.withLock { record } }

    /// Waits (up to ten seconds, looking every 10 ms) until what the clients sent satisfies `condition`, which the
    /// client may send just after its caller saw the request fail; returns the record either way.
    func recorded(within condition: (Record) -> Bool) async -> Record {
        for _ in 0..<1000 {
            let now = recorded
            if condition(now) { return now }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return recorded
    }

    /// Stops accepting.
    func stop() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { break }
            var wait = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let index: Int = lock.withLock {
                record.connections += 1
                return record.connections
            }
            Thread.detachNewThread { [self] in
                let connection = Connection(descriptor: descriptor, server: self)
                connection.send(HTTP2FrameBytes.settingsFrame(settings))
                script(connection, index)
                Glibc.close(descriptor)
            }
        }
        Glibc.close(listener)
    }
}
#endif
