#if canImport(CNghttp2)
import Foundation
import RequestKitTestSupport

import RequestKitHTTP2

/// An in-memory HTTP/2 server (nghttp2's server session, ``HTTP2ServerPeer``) behind a ``ScriptedByteStream``:
/// whatever the client writes reaches it, and what it answers is queued for the client to read. Each whole request
/// goes to `handler`, which answers it (or resets it, or goes away) through the peer.
///
/// ```swift
/// let server = InMemoryHTTP2Server { stream, request, peer in peer.respond(stream, status: 200, body: Data("hi".utf8)) }
/// server.attach(to: scriptedStream)
/// ```
final class InMemoryHTTP2Server: @unchecked Sendable {
    // Safe: only the thread that turns the test's loop (and writes to the stream) touches it.
    let peer: HTTP2ServerPeer
    private var handled: Set<Int32> = []
    private let handler: (Int32, HTTP2ServerPeer.Received, HTTP2ServerPeer) -> Void
    /// The requests' paths, in the order they arrived.
    private(set) var paths: [String] = []
    /// The bytes the server sent.
    private(set) var sent: [UInt8] = []

    init(
        settings: [(Int32, UInt32)] = [],
        handler: @escaping (Int32, HTTP2ServerPeer.Received, HTTP2ServerPeer) -> Void
    ) {
        peer = HTTP2ServerPeer(settings: settings)
        self.handler = handler
    }

    /// Serves `stream`: the client's bytes go to the server, its answers back.
    func attach(to stream: ScriptedByteStream) {
        stream.peer = { [self] bytes in
            peer.receive(bytes)
            for (id, request) in peer.requests.sorted(by: { $0.key < $1.key })
            where id > 0 && request.ended && !handled.contains(id) {
                handled.insert(id)
                paths.append(request.fields.first { $0.name == ":path" }?.value ?? "")
                handler(id, request, peer)
            }
            let answer = peer.outgoing()
            sent += answer
            return answer
        }
    }

    /// The bytes of `stream`'s frames in `bytes` (each frame's 9-byte header and its payload), walking the frames
    /// from `offset` (past a client's 24-byte preface, for what a client wrote).
    static func frameBytes(of stream: Int32, in bytes: [UInt8], from offset: Int = 0) -> Int {
        var position = offset
        var total = 0
        while position + 9 <= bytes.count {
            let length = Int(bytes[position]) << 16 | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
            let id =
                Int32(bytes[position + 5] & 0x7F) << 24 | Int32(bytes[position + 6]) << 16
                | Int32(bytes[position + 7]) << 8 | Int32(bytes[position + 8])
            if id == stream { total += 9 + length }
            position += 9 + length
        }
        return total
    }
}
#endif
