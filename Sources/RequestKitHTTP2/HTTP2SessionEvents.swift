import RequestKitModel

#if canImport(CNghttp2)
import CNghttp2
import Foundation

/// What nghttp2's callbacks report while an ``HTTP2Session`` reads, turned into ``HTTP2Session/Output`` values, and
/// the per-stream state those need. The callbacks are C functions: they find this object through nghttp2's user data.
///
/// Only its session touches it, from the one thread that owns the session at a time: its properties skip the
/// run-time exclusivity checks, which cost more than the work of a header callback.
final class HTTP2SessionEvents {
    private let maxHeaderListBytes: Int
    @exclusivity(unchecked) private var outputs: [HTTP2Session.Output] = []
    /// The streams started and not yet ended (nor cancelled).
    @exclusivity(unchecked) var open: Set<Int32> = []
    /// Request bodies still being sent, by stream.
    @exclusivity(unchecked) var bodies: [Int32: HTTP2RequestBody] = [:]
    /// The outbound halves of the tunnels opened with extended CONNECT, by stream, until the stream closes both ways.
    @exclusivity(unchecked) var tunnels: [Int32: HTTP2TunnelOutbound] = [:]
    /// Why a stream's body could not be read, for the streams reset for it.
    @exclusivity(unchecked) private var unreadable: [Int32: String] = [:]
    /// The header block being received, and its size as the header list limit counts it. One at a time: a block's
    /// frames come one after another, with no other frame between them (RFC 9113, 4.3), which nghttp2 enforces.
    @exclusivity(unchecked) private var block: HeaderBlock?
    /// The streams whose final response head arrived.
    @exclusivity(unchecked) private var answered: Set<Int32> = []
    /// The streams reset for a header list over the limit.
    @exclusivity(unchecked) private var oversized: Set<Int32> = []
    @exclusivity(unchecked) private(set) var isGoingAway = false
    @exclusivity(unchecked) private var lastStreamID = Int32.max
    @exclusivity(unchecked) private(set) var hasServerSettings = false
    /// The server's `GOAWAY` when its code was not `NO_ERROR`.
    @exclusivity(unchecked) private(set) var receivedGoAwayFailure: HTTP2ConnectionFailure?
    /// The connection's own `GOAWAY` after the server broke the protocol.
    @exclusivity(unchecked) private(set) var sentGoAway: HTTP2ConnectionFailure?
    /// nghttp2's last description of something the server got wrong.
    @exclusivity(unchecked) private(set) var lastError: String?
    /// The acknowledgements of the server's PING and SETTINGS frames made since the connection's bytes were last
    /// taken for writing.
    @exclusivity(unchecked) var acknowledgementsUnwritten = 0
    /// The bytes of each stream's frames (headers and payloads) sent and received, until its connection takes them.
    @exclusivity(unchecked) var wireBytes: [Int32: (sent: Int, received: Int)] = [:]

    init(maxHeaderListBytes: Int) {
        self.maxHeaderListBytes = maxHeaderListBytes
    }

    /// The outputs collected since the last call.
    func take() -> [HTTP2Session.Output] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    // MARK: Events

    private func beganHeaders(on stream: Int32) {
        block = HeaderBlock(stream: stream)
    }

    /// A field of the block on `stream`; false when the block is over the limit (the stream is then reset).
    private func header(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, on stream: Int32
    ) -> Bool {
        guard block?.stream == stream else { return true }
        // RFC 9113, 6.5.2: a field counts its name, its value and 32 bytes. Changed where it is stored: a copy taken
        // out and put back would copy the fields for each one added.
        block?.bytes += name.count + value.count + 32
        guard let bytes = block?.bytes, bytes <= maxHeaderListBytes else {
            block = nil
            oversized.insert(stream)
            return false
        }
        block?.fields.append(
            HTTPHeader(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        return true
    }

    private func receivedHeaders(on stream: Int32, endsStream: Bool) {
        guard let block, block.stream == stream else { return }
        self.block = nil
        guard open.contains(stream) else { return }
        if answered.contains(stream) {
            outputs.append(.trailers(stream: stream, HTTPHeaders(block.fields.filter { !$0.name.hasPrefix(":") })))
        } else {
            // nghttp2 checked the block: a response head has exactly one valid `:status`.
            let status = block.fields.first { $0.name == ":status" }.flatMap { Int($0.value) } ?? 0
            let headers = HTTPHeaders(block.fields.filter { !$0.name.hasPrefix(":") })
            if (100..<200).contains(status) {
                outputs.append(.informational(stream: stream, status: status, headers: headers))
            } else {
                answered.insert(stream)
                outputs.append(.head(stream: stream, status: status, headers: headers))
            }
        }
        if endsStream { ended(stream) }
    }

    private func receivedData(_ bytes: UnsafeBufferPointer<UInt8>, on stream: Int32) {
        guard open.contains(stream) else { return }
        outputs.append(.data(stream: stream, Data(buffer: bytes)))
    }

    private func ended(_ stream: Int32) {
        guard open.remove(stream) != nil else { return }
        forget(stream)
        outputs.append(.end(stream: stream))
    }

    private func closed(_ stream: Int32, code: HTTP2ErrorCode) {
        defer {
            forget(stream)
            // A tunnel outlives its response's end (the server's `END_STREAM`) until its own half ends too.
            if !tunnels.isEmpty { tunnels[stream] = nil }
        }
        guard open.remove(stream) != nil else { return }
        if !unreadable.isEmpty, let reason = unreadable[stream] {
            outputs.append(.failed(stream: stream, .requestBodyUnreadable(reason)))
        } else if !oversized.isEmpty, oversized.contains(stream) {
            outputs.append(.failed(stream: stream, .headerListTooLarge(limit: maxHeaderListBytes)))
        } else if !answered.contains(stream), code == .refusedStream || (isGoingAway && stream > lastStreamID) {
            // RFC 9113, 8.7: the server did not process it. nghttp2 closes the streams a GOAWAY did not reach with
            // REFUSED_STREAM too: those count as unreached, not as refused.
            let isUnreached = isGoingAway && stream > lastStreamID
            outputs.append(.retry(stream: stream, isRefused: !isUnreached))
        } else {
            outputs.append(.failed(stream: stream, .reset(code)))
        }
    }

    private func forget(_ stream: Int32) {
        // Most of these are empty: asking an empty one would still hash the stream's number.
        if !bodies.isEmpty { bodies[stream] = nil }
        if block?.stream == stream { block = nil }
        answered.remove(stream)
        if !oversized.isEmpty { oversized.remove(stream) }
        if !unreadable.isEmpty { unreadable[stream] = nil }
    }

    private func receivedGoAway(lastStreamID: Int32, code: HTTP2ErrorCode, detail: String) {
        isGoingAway = true
        self.lastStreamID = min(self.lastStreamID, lastStreamID)
        if code != .noError { receivedGoAwayFailure = .goAway(code, detail) }
        outputs.append(.goingAway(lastStreamID: lastStreamID, code: code))
    }

    private func sentGoAway(code: HTTP2ErrorCode) {
        guard code != .noError, sentGoAway == nil else { return }
        sentGoAway = .protocolViolation(code, lastError ?? "the connection sent GOAWAY")
    }

    /// What reading a request body for nghttp2 gave.
    enum BodyRead {
        /// `count` bytes were copied; the stream ends with them when `isLast`.
        case bytes(count: Int, isLast: Bool)
        /// A tunnel has no bytes yet: nghttp2 waits until the session resumes the stream.
        case deferred
        /// The body cannot be read: the stream is reset, and fails with the reason.
        case unreadable
    }

    /// Copies the next bytes of `stream`'s body (or of its tunnel) into `buffer`.
    private func readBody(of stream: Int32, into buffer: UnsafeMutableBufferPointer<UInt8>) -> BodyRead {
        if !tunnels.isEmpty, tunnels[stream] != nil {
            guard let (count, isLast) = tunnels[stream]?.read(into: buffer) else { return .deferred }
            return .bytes(count: count, isLast: isLast)
        }
        guard var body = bodies[stream] else { return .bytes(count: 0, isLast: true) }
        do {
            let (block, isLast) = try body.next(upTo: buffer.count)
            // A reader never returns more than asked for; a block that would not fit is an error, not a truncation.
            guard block.count <= buffer.count else {
                unreadable[stream] = "the request body's reader returned more bytes than asked for"
                return .unreadable
            }
            _ = block.copyBytes(to: buffer)
            bodies[stream] = isLast ? nil : body
            return .bytes(count: block.count, isLast: isLast)
        } catch {
            unreadable[stream] = error.description
            return .unreadable
        }
    }

    // MARK: nghttp2's callbacks

    /// Sets the callbacks that report to the session's events.
    static func install(on callbacks: OpaquePointer) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, context in
            guard let frame, let events = events(context) else { return 0 }
            if UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue {
                events.beganHeaders(on: frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, context in
            guard let frame, let events = events(context) else { return 0 }
            let accepted = events.header(
                UnsafeBufferPointer(start: name, count: nameLength),
                UnsafeBufferPointer(start: value, count: valueLength),
                on: frame.pointee.hd.stream_id)
            return accepted ? 0 : NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            guard let frame, let events = events(context) else { return 0 }
            let header = frame.pointee.hd
            if header.stream_id != 0, let index = events.wireBytes.index(forKey: header.stream_id) {
                events.wireBytes.values[index].received += 9 + header.length
            }
            let endsStream = has(NGHTTP2_FLAG_END_STREAM, header.flags)
            switch UInt32(header.type) {
            case NGHTTP2_HEADERS.rawValue:
                events.receivedHeaders(on: header.stream_id, endsStream: endsStream)
            case NGHTTP2_DATA.rawValue:
                if endsStream { events.ended(header.stream_id) }
            case NGHTTP2_GOAWAY.rawValue:
                let goAway = frame.pointee.goaway
                let detail =
                    goAway.opaque_data.map {
                        String(
                            decoding: UnsafeBufferPointer(start: $0, count: min(goAway.opaque_data_len, 256)),
                            as: UTF8.self)
                    } ?? ""
                events.receivedGoAway(
                    lastStreamID: goAway.last_stream_id, code: HTTP2ErrorCode(rawValue: goAway.error_code),
                    detail: detail)
            case NGHTTP2_SETTINGS.rawValue:
                if !has(NGHTTP2_FLAG_ACK, header.flags) { events.hasServerSettings = true }
            case NGHTTP2_PING.rawValue:
                if has(NGHTTP2_FLAG_ACK, header.flags) { events.outputs.append(.pingAnswered) }
            default:
                break
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) {
            session, _, stream, data, length, context in
            guard let events = events(context) else { return 0 }
            if events.open.contains(stream) {
                events.receivedData(UnsafeBufferPointer(start: data, count: length), on: stream)
            } else {
                // A stream nobody reads any more: its bytes still count against the connection's window.
                _ = nghttp2_session_consume_connection(session, length)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, context in
            events(context)?.closed(stream, code: HTTP2ErrorCode(rawValue: code))
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, context in
            guard let frame, let events = events(context) else { return 0 }
            let streamID = frame.pointee.hd.stream_id
            if streamID != 0, let index = events.wireBytes.index(forKey: streamID) {
                events.wireBytes.values[index].sent += 9 + frame.pointee.hd.length
            }
            let type = UInt32(frame.pointee.hd.type)
            if type == NGHTTP2_GOAWAY.rawValue {
                events.sentGoAway(code: HTTP2ErrorCode(rawValue: frame.pointee.goaway.error_code))
            } else if type == NGHTTP2_PING.rawValue || type == NGHTTP2_SETTINGS.rawValue,
                has(NGHTTP2_FLAG_ACK, frame.pointee.hd.flags)
            {
                events.acknowledgementsUnwritten += 1
            }
            return 0
        }
        nghttp2_session_callbacks_set_error_callback2(callbacks) { _, _, message, length, context in
            guard let message, let events = events(context) else { return 0 }
            events.lastError = String(decoding: UnsafeRawBufferPointer(start: message, count: length), as: UTF8.self)
            return 0
        }
    }

    /// nghttp2's reader of a request body: the bytes the stream's flow control allows now.
    static let readBody: nghttp2_data_source_read_callback = { _, stream, buffer, length, flags, _, context in
        guard let buffer, let events = events(context) else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        switch events.readBody(of: stream, into: UnsafeMutableBufferPointer(start: buffer, count: length)) {
        case .bytes(let count, let isLast):
            if isLast { flags?.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
            return count
        case .deferred:
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        case .unreadable:
            // nghttp2 resets the stream; its close reports why.
            return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
    }
}

/// The events of the session whose user data is `context`.
private func events(_ context: UnsafeMutableRawPointer?) -> HTTP2SessionEvents? {
    context.map { Unmanaged<HTTP2SessionEvents>.fromOpaque($0).takeUnretainedValue() }
}

/// Whether a frame's `flags` have `flag`.
private func has(_ flag: nghttp2_flag, _ flags: UInt8) -> Bool {
    UInt32(flags) & flag.rawValue != 0
}

/// A header block being received: its stream, its fields so far and their size as the header list limit counts it.
private struct HeaderBlock {
    let stream: Int32
    var fields: [HTTPHeader]
    var bytes = 0

    init(stream: Int32) {
        self.stream = stream
        fields = []
        fields.reserveCapacity(12)
    }
}
#endif
