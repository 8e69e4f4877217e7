#if canImport(CNghttp2) && os(Linux)
import Foundation
import Glibc
import RequestKitTestSupport

/// An h2c server on 127.0.0.1 that breaks the protocol on purpose: each accepted connection runs a script of raw
/// frames (``HTTP2FrameBytes``) against the client, over a blocking socket on a thread of its own. It records what the
/// client said back (``Record``): how many connections and streams it opened, and the error codes of its `GOAWAY`
/// and `RST_STREAM` frames.
///
/// ```swift
/// let server = try ScriptedHTTP2Server { connection, index in
///     guard let stream = connection.nextRequest() else { return }
///     connection.send(HTTP2FrameBytes.frame(HTTP2FrameBytes.data, stream: stream, payload: .init(repeating: 0, count: 20_000)))
///     connection.readUntilClosed()
/// }
/// defer { server.stop() }
/// print(await server.recorded { !$0.goAwayCodes.isEmpty }.goAwayCodes)  // [6]: FRAME_SIZE_ERROR
/// ```
final class ScriptedHTTP2Server: @unchecked Sendable {
    // Safe: `record` is only touched while holding `lock`; the rest is set before the thread starts.

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var record = Record()
    private let settings: [(UInt16, UInt32)]
    private let script: @Sendable (Connection, Int) -> Void

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

    /// Notes what a connection read from its client.
    func note(_ change: (inout Record) -> Void) {
        lock.withLock { change(&record) }
    }

    /// Stops accepting.
    func stop() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { break }
            // A script never outlives its test for long: it waits at most ten seconds for a write, and a minute for
            // the client's next frame: under the thread sanitizer's load a test's next request can come late enough
            // that a script waiting ten seconds gives up and closes the connection, and the request goes to a new one
            // whose script answers it as a first.
            var writeWait = timeval(tv_sec: 10, tv_usec: 0)
            var readWait = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &readWait, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &writeWait, socklen_t(MemoryLayout<timeval>.size))
            // Each write goes out at once, however small, rather than waiting for the client to acknowledge the last.
            var noDelay: Int32 = 1
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            let index: Int = lock.withLock {
                record.connections += 1
                return record.connections
            }
            Thread.detachNewThread { [self] in
                let connection = Connection(descriptor: descriptor, server: self)
                connection.send(HTTP2FrameBytes.settingsFrame(settings))
                script(connection, index)
                connection.close()
            }
        }
        Glibc.close(listener)
    }
}
#endif
