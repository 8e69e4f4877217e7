import Foundation
import RequestKitTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A server on 127.0.0.1 that answers the first request on each connection with a kept-alive response, then waits
/// for the next request's bytes and closes the connection without answering: the race in which a pooled
/// connection is closed by the server just as a request is sent on it, made deterministic. With an `earlyAnswer`, it
/// instead answers each request as soon as its head is read, without reading its body, and closes: a server refusing
/// an upload (413) before it arrives. With `holdingUntil` connections, each connection's first answer waits until
/// the server has accepted that many, so that requests sent at once cannot share a connection.
final class LingeringCloseServer: @unchecked Sendable {
    // Safe: `connections` and `accepted` are only touched while holding `lock`; `listener` and `port` are set once
    // in the initializer.
    private let lock = NSLock()
    private let listener: Int32
    private var connections: [Int32] = []
    private var accepted = 0
    /// The port the server listens on.
    let port: Int
    private let earlyAnswer: [UInt8]?
    private let holdingUntil: Int

    /// How many connections the server has accepted.
    var acceptedConnections: Int { lock.withLock { accepted } }

    init(earlyAnswer: String? = nil, holdingUntil connections: Int = 1) throws {
        self.earlyAnswer = earlyAnswer.map { Array($0.utf8) }
        holdingUntil = connections
        (listener, port) = try LoopbackListener.open(backlog: 16)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Closes the listener and every connection still open.
    func stop() {
        _ = shutdown(listener, Int32(SHUT_RDWR))
        // Under the lock, so that no descriptor is closed (and its number reused by another test's socket) meanwhile.
        lock.withLock {
            for connection in connections { _ = shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { break }
            lock.withLock {
                accepted += 1
                connections.append(connection)
            }
            Thread.detachNewThread { [self] in
                if let earlyAnswer {
                    if Self.readRequestHead(connection) { _ = Self.answer(connection, earlyAnswer) }
                } else {
                    serve(connection)
                }
                lock.withLock {
                    connections.removeAll { $0 == connection }
                    _ = close(connection)
                }
            }
        }
        _ = close(listener)
    }

    private func serve(_ connection: Int32) {
        guard Self.readRequestHead(connection) else { return }
        // This connection's own thread waits (never a task of the cooperative pool).
        for _ in 0..<10_000 where acceptedConnections < holdingUntil { usleep(1_000) }
        let response = Array("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nonce".utf8)
        guard Self.answer(connection, response) == response.count else { return }
        // Wait for the next request to start arriving, then close without answering it.
        var byte: UInt8 = 0
        _ = recv(connection, &byte, 1, 0)
    }

    /// Sends `bytes` on `connection`, returning what `send` returns. A client that closed first, or ``stop()``
    /// shutting the socket down while a connection's thread waits to answer, makes it fail with `EPIPE`: never a
    /// `SIGPIPE`, which would end the whole test process.
    private static func answer(_ connection: Int32, _ bytes: [UInt8]) -> Int {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        var one: Int32 = 1
        _ = setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        let flags: Int32 = 0
        #endif
        return bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, flags) }
    }

    /// Reads until the end of a request head (requests in these tests have no body worth keeping).
    private static func readRequestHead(_ connection: Int32) -> Bool {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = recv(connection, &chunk, 1, 0)
            guard count > 0 else { return false }
            received.append(chunk[0])
        }
        return true
    }
}
