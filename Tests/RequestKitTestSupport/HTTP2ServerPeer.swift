#if canImport(CNghttp2)
import CNghttp2
import Foundation
import RequestKitModel

@testable import RequestKitHTTP2

/// The server side of an HTTP/2 connection in memory (nghttp2's server session), for tests of ``HTTP2Session``: it
/// records the requests it receives and answers as a test tells it to. No socket: ``exchange(with:)`` carries the
/// bytes between the two sides.
package final class HTTP2ServerPeer {
    /// A request as the server received it.
    package struct Received: Equatable {
        package var fields: [HTTPHeader] = []
        package var body = Data()
        package var ended = false
        package var resetCode: UInt32?
    }

    package private(set) var requests: [Int32: Received] = [:]
    private var bodies: [Int32: (bytes: Data, sent: Int, trailers: [HTTPHeader])] = [:]
    /// The bytes of each accepted tunnel (``accept(_:status:headers:)``) waiting to go, and whether its end follows.
    private var tunnels: [Int32: (bytes: Data, isEnding: Bool)] = [:]
    private var session: OpaquePointer?

    /// A server that sends its `SETTINGS` (with `settings`, as nghttp2 settings ids and values) first.
    package init(settings: [(Int32, UInt32)] = []) {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, context in
            guard let frame, let peer = peer(context) else { return 0 }
            let field = HTTPHeader(
                name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            peer.requests[frame.pointee.hd.stream_id, default: Received()].fields.append(field)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, context in
            peer(context)?.requests[stream, default: Received()].body.append(
                Data(buffer: UnsafeBufferPointer(start: data, count: length)))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            guard let frame, let peer = peer(context) else { return 0 }
            let header = frame.pointee.hd
            if UInt32(header.flags) & NGHTTP2_FLAG_END_STREAM.rawValue != 0 {
                peer.requests[header.stream_id, default: Received()].ended = true
            }
            if UInt32(header.type) == NGHTTP2_RST_STREAM.rawValue {
                peer.requests[header.stream_id, default: Received()].resetCode = frame.pointee.rst_stream.error_code
            }
            return 0
        }
        var made: OpaquePointer?
        nghttp2_session_server_new(&made, callbacks, Unmanaged.passUnretained(self).toOpaque())
        session = made
        var entries = settings.map { nghttp2_settings_entry(settings_id: $0.0, value: $0.1) }
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit { nghttp2_session_del(session) }

    /// Answers `stream` with `status`, `headers`, then `body` (when given) and `trailers` (when given).
    package func respond(
        _ stream: Int32, status: Int, headers: [HTTPHeader] = [], body: Data? = nil, trailers: [HTTPHeader] = []
    ) {
        let fields = [HTTPHeader(name: ":status", value: String(status))] + headers
        if let body {
            bodies[stream] = (body, 0, trailers)
            var provider = nghttp2_data_provider()
            provider.read_callback = { session, stream, buffer, length, flags, _, context in
                guard let buffer, let peer = peer(context), var body = peer.bodies[stream] else { return 0 }
                let count = min(length, body.bytes.count - body.sent)
                body.bytes.copyBytes(
                    to: UnsafeMutableBufferPointer(start: buffer, count: count), from: body.sent..<(body.sent + count))
                body.sent += count
                peer.bodies[stream] = body
                if body.sent == body.bytes.count {
                    flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                    if !body.trailers.isEmpty {
                        flags?.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                        HTTP2Session.withFields(body.trailers) {
                            _ = nghttp2_submit_trailer(session, stream, $0.baseAddress, $0.count)
                        }
                    }
                }
                return count
            }
            HTTP2Session.withFields(fields) {
                _ = nghttp2_submit_response(session, stream, $0.baseAddress, $0.count, &provider)
            }
        } else {
            HTTP2Session.withFields(fields) {
                _ = nghttp2_submit_response(session, stream, $0.baseAddress, $0.count, nil)
            }
        }
    }

    /// Answers the extended CONNECT on `stream` with `status` and `headers`, without ending the stream: bytes go both
    /// ways after it (``send(_:on:endsStream:)``).
    package func accept(_ stream: Int32, status: Int = 200, headers: [HTTPHeader] = []) {
        HTTP2Session.withFields([HTTPHeader(name: ":status", value: String(status))] + headers) {
            _ = nghttp2_submit_headers(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, nil, $0.baseAddress, $0.count, nil)
        }
    }

    /// Sends `bytes` on the accepted tunnel `stream`, then its end when `endsStream`.
    package func send(_ bytes: Data, on stream: Int32, endsStream: Bool = false) {
        if let waiting = tunnels[stream] {
            tunnels[stream] = (waiting.bytes + bytes, endsStream)
            nghttp2_session_resume_data(session, stream)
            return
        }
        tunnels[stream] = (bytes, endsStream)
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, stream, buffer, length, flags, _, context in
            guard let buffer, let peer = peer(context), let tunnel = peer.tunnels[stream] else { return 0 }
            let count = min(length, tunnel.bytes.count)
            guard count > 0 || tunnel.isEnding else { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
            tunnel.bytes.copyBytes(to: UnsafeMutableBufferPointer(start: buffer, count: count), count: count)
            peer.tunnels[stream] = (Data(tunnel.bytes.dropFirst(count)), tunnel.isEnding)
            if tunnel.isEnding, count == tunnel.bytes.count { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        }
        nghttp2_submit_data(session, UInt8(NGHTTP2_FLAG_END_STREAM.rawValue), stream, &provider)
    }

    /// Sends an interim response on `stream` (a 1xx head without an end).
    package func inform(_ stream: Int32, status: Int) {
        HTTP2Session.withFields([HTTPHeader(name: ":status", value: String(status))]) {
            _ = nghttp2_submit_headers(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, nil, $0.baseAddress, $0.count, nil)
        }
    }

    /// Resets `stream` with `code`.
    package func reset(_ stream: Int32, code: HTTP2ErrorCode) {
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code.rawValue)
    }

    /// Sends `GOAWAY` with `lastStreamID` and `code`.
    package func goAway(lastStreamID: Int32, code: HTTP2ErrorCode) {
        nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), lastStreamID, code.rawValue, nil, 0)
    }

    /// Takes the client's bytes.
    package func receive(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress else { return }
            _ = nghttp2_session_mem_recv(session, start, buffer.count)
        }
    }

    /// The server's bytes to send.
    package func outgoing() -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            guard count > 0, let chunk else { break }
            bytes.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
        return bytes
    }

    /// Carries bytes both ways until neither side has any to send; returns what the client made of them.
    package func exchange(with client: HTTP2Session) -> [HTTP2Session.Output] {
        var outputs: [HTTP2Session.Output] = []
        while true {
            let fromClient = client.outgoing()
            receive(fromClient)
            let fromServer = outgoing()
            if fromClient.isEmpty, fromServer.isEmpty { return outputs }
            outputs += fromServer.withUnsafeBytes { client.receive($0) }
        }
    }
}

private func peer(_ context: UnsafeMutableRawPointer?) -> HTTP2ServerPeer? {
    context.map { Unmanaged<HTTP2ServerPeer>.fromOpaque($0).takeUnretainedValue() }
}

#endif
