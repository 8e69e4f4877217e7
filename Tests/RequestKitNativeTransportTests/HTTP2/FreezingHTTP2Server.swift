#if canImport(CNghttp2) && os(Linux)
import Foundation
import Glibc
import RequestKitTestSupport

import RequestKitHTTP2

/// An h2c server on 127.0.0.1 (nghttp2's server session, ``HTTP2ServerPeer``, over blocking sockets on a thread of its
/// own) that answers every request with `200` and `ok`, except that its first connection goes silent after its first
/// answer: it stays open and reads or writes nothing more, as a server that crashed behind a firewall would. For the
/// liveness check of idle connections.
///
/// ```swift
/// let server = try FreezingHTTP2Server()
/// defer { server.stop() }
/// print(server.port, server.acceptedCount)
/// ```
final class FreezingHTTP2Server: @unchecked Sendable {
    // Safe: `accepted` and `open` are only touched while holding `lock`; the rest is set before the thread starts.
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var accepted = 0
    private var open: [Int32] = []

    init() throws {
        (listener, port) = try LoopbackListener.open(backlog: 16)
        Thread.detachNewThread { [self] in serve() }
    }

    /// How many connections it accepted.
    var acceptedCount: Int { lock.withLock { accepted } }

    /// Stops accepting and ends every connection.
    func stop() {
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for descriptor in lock.withLock({ open }) { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    private func serve() {
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { break }
            let index: Int = lock.withLock {
                accepted += 1
                open.append(descriptor)
                return accepted
            }
            answer(on: descriptor, goingSilentAfterFirst: index == 1)
        }
        for descriptor in lock.withLock({ open }) { Glibc.close(descriptor) }
        Glibc.close(listener)
    }

    /// Answers requests on `descriptor` until the client closes it, or until the first answer when it goes silent.
    private func answer(on descriptor: Int32, goingSilentAfterFirst: Bool) {
        let peer = HTTP2ServerPeer()
        var answered: Set<Int32> = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            peer.receive(Array(buffer[0..<count]))
            for (stream, request) in peer.requests where request.ended && !answered.contains(stream) {
                answered.insert(stream)
                peer.respond(stream, status: 200, body: Data("ok".utf8))
            }
            let reply = peer.outgoing()
            guard reply.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == reply.count else { return }
            if goingSilentAfterFirst, !answered.isEmpty { return }
        }
    }
}
#endif
