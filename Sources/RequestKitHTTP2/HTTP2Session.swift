import RequestKitModel

#if canImport(CNghttp2)
import CNghttp2
import Foundation

/// The client side of one HTTP/2 connection, without I/O: the bytes the server sent go in (``receive(_:)``), and what
/// they mean comes out as ``Output`` values; the bytes to write wait in ``outgoing()``. Framing, HPACK and the stream
/// states are the system nghttp2's; what each ending means (a retry, a failure), the limits and the flow control the
/// consumer drives are decided here.
///
/// Confined to one thread (the connection's event loop): it is not `Sendable`.
///
/// ```swift
/// let session = try HTTP2Session(settings: HTTP2Settings())
/// let stream = try session.request(head, body: nil)
/// socket.write(session.outgoing())             // the preface, SETTINGS and the request
/// for output in session.receive(bytesRead) {   // what the server answered
///     if case .head(stream, let status, _) = output { print(status) }
/// }
/// ```
package final class HTTP2Session {
    /// What the bytes received meant, in order.
    package enum Output: Hashable, Sendable {
        /// An interim (1xx) response on `stream`; the final one follows.
        case informational(stream: Int32, status: Int, headers: HTTPHeaders)
        /// The final response head on `stream`.
        case head(stream: Int32, status: Int, headers: HTTPHeaders)
        /// A piece of `stream`'s body. Give its bytes back with ``HTTP2Session/consumed(_:on:)`` once read.
        case data(stream: Int32, Data)
        /// The fields the server sent after `stream`'s body.
        case trailers(stream: Int32, HTTPHeaders)
        /// `stream`'s response is complete.
        case end(stream: Int32)
        /// The server did not process `stream`: it refused it (`isRefused`, `REFUSED_STREAM`), or went away below
        /// it. Its request may be sent again, whatever its method.
        case retry(stream: Int32, isRefused: Bool)
        /// `stream` ended without its whole response.
        case failed(stream: Int32, HTTP2StreamFailure)
        /// The server is going away: no new streams; streams up to `lastStreamID` go on.
        case goingAway(lastStreamID: Int32, code: HTTP2ErrorCode)
        /// The server answered the connection's PING.
        case pingAnswered
        /// The connection is over: nothing more will be read or written (after ``HTTP2Session/outgoing()`` is
        /// written). `failure` is nil when it ended cleanly.
        case closed(HTTP2ConnectionFailure?)
    }

    /// Why a request could not be started on this connection.
    package enum Refusal: Error, Hashable, Sendable {
        /// The connection is going away or closed: use another.
        case connectionUnavailable
        /// The server's `MAX_CONCURRENT_STREAMS` is reached: wait for a stream to end, or use another connection.
        case noStreamAvailable
        /// nghttp2 refused the request's head: the text says why.
        case invalidRequest(String)
        /// A tunnel was asked for, and the server did not send `SETTINGS_ENABLE_CONNECT_PROTOCOL` = 1 (RFC 8441, 3):
        /// it does not take extended CONNECT on this connection.
        case extendedConnectNotAllowed
    }

    private let session: OpaquePointer
    private let events: HTTP2SessionEvents
    private let settings: HTTP2Settings
    /// Whether ``Output/closed(_:)`` was reported.
    private var isClosed = false
    /// Bytes made and not yet taken by ``outgoing()``.
    private var pending: [UInt8] = []
    /// Where the frames in what the server sends begin and end.
    private var frames = HTTP2FrameBoundaries()
    /// The bytes of a frame held until it is whole (``HTTP2FrameBoundaries/holdsWholeFrame``): at most a frame
    /// header and a 16,384-byte header block.
    private var held: [UInt8] = []

    /// A session that has queued the connection preface and its `SETTINGS` (push off, the stream window and header
    /// list limit of `settings`).
    ///
    /// - Throws: ``HTTP2ConnectionFailure/protocolViolation(_:_:)`` when nghttp2 cannot make the session.
    package init(settings: HTTP2Settings) throws(HTTP2ConnectionFailure) {
        self.settings = settings
        let events = HTTP2SessionEvents(maxHeaderListBytes: settings.maxHeaderListBytes)
        self.events = events
        var callbacks: OpaquePointer?
        var option: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks,
            nghttp2_option_new(&option) == 0, let option
        else {
            throw .protocolViolation(.internalError, "nghttp2 could not allocate a session")
        }
        defer {
            nghttp2_session_callbacks_del(callbacks)
            nghttp2_option_del(option)
        }
        HTTP2SessionEvents.install(on: callbacks)
        // The consumer's reads open the windows (``consumed(_:on:)``), so a slow reader slows the server down.
        nghttp2_option_set_no_auto_window_update(option, 1)
        nghttp2_option_set_peer_max_concurrent_streams(option, UInt32(clamping: settings.assumedMaxConcurrentStreams))
        nghttp2_option_set_max_settings(option, settings.maxSettingsEntries)
        nghttp2_option_set_max_outbound_ack(option, settings.maxPendingAcknowledgements)
        nghttp2_option_set_max_continuations(option, settings.maxContinuationFrames)
        var made: OpaquePointer?
        let context = Unmanaged.passUnretained(events).toOpaque()
        guard nghttp2_session_client_new2(&made, callbacks, context, option) == 0, let made else {
            throw .protocolViolation(.internalError, "nghttp2 could not allocate a session")
        }
        session = made
        var entries = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                value: UInt32(clamping: min(settings.streamWindow, Int(Int32.max)))),
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                value: UInt32(clamping: settings.maxHeaderListBytes)),
        ]
        let submitted = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
        let window = nghttp2_session_set_local_window_size(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, Int32(clamping: settings.connectionWindow))
        guard submitted == 0, window == 0 else {
            nghttp2_session_del(session)
            throw .protocolViolation(.internalError, "nghttp2 refused the connection's settings")
        }
    }

    deinit {
        nghttp2_session_del(session)
    }

    // MARK: Requests

    /// Starts a request: its head, then `body` if there is one, read as the stream's flow control allows (a file is
    /// read a window at a time, never whole). Returns the stream's id.
    ///
    /// - Throws: ``Refusal`` when the connection cannot take the stream.
    package func request(_ head: HTTP2RequestHead, body: HTTP2RequestBody?) throws(Refusal) -> Int32 {
        let stream = try submit(head, hasBody: body != nil)
        if let body { events.bodies[stream] = body }
        return stream
    }

    /// Opens a tunnel with extended CONNECT (RFC 8441): `head` (made with
    /// ``HTTP2RequestHead/init(connecting:scheme:authority:path:headers:)``) goes out without ending the stream. The
    /// response comes as a request's does: ``Output/head(stream:status:headers:)`` (a 2xx accepts the tunnel), then
    /// the server's bytes as ``Output/data(stream:_:)``, to give back with ``consumed(_:on:)``, and
    /// ``Output/end(stream:)`` when the server is done sending. Bytes given to ``send(_:on:)`` go out as the stream's
    /// `DATA` frames as its flow control allows, until ``finishSending(on:)``; ``cancel(_:)`` resets the stream. The
    /// connection goes on serving other streams throughout.
    ///
    /// ```swift
    /// guard session.allowsExtendedConnect else { return }   // the server's SETTINGS said so
    /// let stream = try session.openTunnel(
    ///     HTTP2RequestHead(connecting: "websocket", scheme: "https", authority: "chat.example.com", path: "/live",
    ///         headers: ["Sec-WebSocket-Version": "13"]))
    /// session.send(frameBytes, on: stream)
    /// socket.write(session.outgoing())
    /// ```
    ///
    /// - Throws: ``Refusal/extendedConnectNotAllowed`` when the server did not allow extended CONNECT (or its
    ///   `SETTINGS` did not arrive yet), or another ``Refusal`` when the connection cannot take the stream.
    package func openTunnel(_ head: HTTP2RequestHead) throws(Refusal) -> Int32 {
        guard allowsExtendedConnect else { throw .extendedConnectNotAllowed }
        let stream = try submit(head, hasBody: true)
        events.tunnels[stream] = HTTP2TunnelOutbound()
        return stream
    }

    /// Queues `bytes` on `stream`'s tunnel (``openTunnel(_:)``), after those not yet sent; they go out as the stream's
    /// flow control allows (``unsentTunnelBytes(on:)`` says how many wait). Nothing happens when the tunnel is
    /// finished, reset or closed.
    package func send(_ bytes: Data, on stream: Int32) {
        guard !bytes.isEmpty, events.tunnels[stream]?.isFinished == false else { return }
        events.tunnels[stream]?.append(bytes)
        _ = nghttp2_session_resume_data(session, stream)
    }

    /// Ends the sending half of `stream`'s tunnel: `END_STREAM` follows the bytes not yet sent. The stream closes once
    /// the server has ended its half too (``Output/end(stream:)``).
    package func finishSending(on stream: Int32) {
        guard events.tunnels[stream]?.isFinished == false else { return }
        events.tunnels[stream]?.isFinished = true
        _ = nghttp2_session_resume_data(session, stream)
    }

    /// The bytes given to ``send(_:on:)`` that wait for `stream`'s flow control; 0 for a stream with no tunnel.
    package func unsentTunnelBytes(on stream: Int32) -> Int {
        events.tunnels[stream]?.unsentCount ?? 0
    }

    /// Submits `head`, with nghttp2 reading the body (or tunnel) when `hasBody`; returns the stream's id.
    private func submit(_ head: HTTP2RequestHead, hasBody: Bool) throws(Refusal) -> Int32 {
        guard canOpenStream else {
            throw isAvailable ? .noStreamAvailable : .connectionUnavailable
        }
        let stream = Self.withFields(head.fields) { fields -> Int32 in
            guard hasBody else {
                return nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, nil, nil)
            }
            var provider = nghttp2_data_provider()
            provider.read_callback = HTTP2SessionEvents.readBody
            return nghttp2_submit_request(session, nil, fields.baseAddress, fields.count, &provider, nil)
        }
        guard stream > 0 else {
            let reason = String(cString: nghttp2_strerror(stream))
            throw stream == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue
                ? .connectionUnavailable : .invalidRequest(reason)
        }
        events.open.insert(stream)
        events.wireBytes[stream] = (0, 0)
        return stream
    }

    /// The bytes of `stream`'s frames sent so far, without forgetting them; 0 for a stream the session does not know.
    package func sentWireBytes(of stream: Int32) -> Int {
        events.wireBytes[stream]?.sent ?? 0
    }

    /// Whether `stream`'s request body has bytes left to send (read as its flow control allows).
    package func isSendingBody(_ stream: Int32) -> Bool {
        !events.bodies.isEmpty && events.bodies[stream] != nil
    }

    /// The bytes of `stream`'s frames sent and received so far (frame headers and payloads: what the stream put on
    /// the wire), which the session then forgets. Take them when the stream's request ends, however it ends.
    package func takeWireBytes(of stream: Int32) -> (sent: Int, received: Int) {
        events.wireBytes.removeValue(forKey: stream) ?? (0, 0)
    }

    /// Resets `stream` with `CANCEL`: its response is no longer wanted. Nothing more is reported for it.
    package func cancel(_ stream: Int32) {
        let tunnel = events.tunnels.removeValue(forKey: stream)
        guard events.open.remove(stream) != nil || tunnel != nil else { return }
        events.bodies[stream] = nil
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_CANCEL.rawValue)
    }

    /// Tells the server that `count` bytes of `stream`'s body were read: they open its windows again (with a
    /// `WINDOW_UPDATE` once enough were read).
    package func consumed(_ count: Int, on stream: Int32) {
        guard count > 0 else { return }
        _ = nghttp2_session_consume(session, stream, count)
    }

    /// Sends a PING; ``Output/pingAnswered`` reports its acknowledgement.
    package func ping() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    // MARK: State

    /// The streams started and not yet ended.
    package var openStreamCount: Int { events.open.count }

    /// The most streams the server allows at once (its `MAX_CONCURRENT_STREAMS`; ``HTTP2Settings/assumedMaxConcurrentStreams``
    /// until it says).
    package var maxConcurrentStreams: Int {
        Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
    }

    /// Whether the connection may still start streams: it is open and the server is not going away.
    package var isAvailable: Bool { !isClosed && !events.isGoingAway && nghttp2_session_want_read(session) != 0 }

    /// Whether a request can start now.
    package var canOpenStream: Bool { isAvailable && openStreamCount < maxConcurrentStreams }

    /// Whether the server's `SETTINGS` arrived: until then the number of streams it allows is assumed.
    package var hasServerSettings: Bool { events.hasServerSettings }

    /// Whether the server takes extended CONNECT (``openTunnel(_:)``): it sent `SETTINGS_ENABLE_CONNECT_PROTOCOL` = 1
    /// (RFC 8441, 3). False until its `SETTINGS` arrive.
    package var allowsExtendedConnect: Bool {
        nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_ENABLE_CONNECT_PROTOCOL) == 1
    }

    // MARK: Bytes

    /// Takes what the server sent and returns what it meant. After a ``Output/closed(_:)``, nothing more is read.
    package func receive(_ bytes: UnsafeRawBufferPointer) -> [Output] {
        guard !isClosed, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return [] }
        var offset = 0
        while offset < bytes.count {
            // One frame at a time, each followed by what it calls for (acknowledgements, resets, GOAWAY), so that
            // the streams a frame ends are reported before the next frame is read: what the session reports depends
            // on the bytes alone, not on how the reads split them.
            let count = frames.bytesToFrameEnd(of: bytes, from: offset)
            let chunk = UnsafeBufferPointer(start: base + offset, count: count)
            offset += count
            if !frames.isAtBoundary, frames.holdsWholeFrame {
                held.append(contentsOf: chunk)
                continue
            }
            let read: Int
            let expected: Int
            if held.isEmpty {
                read = nghttp2_session_mem_recv(session, chunk.baseAddress, count)
                expected = count
            } else {
                held.append(contentsOf: chunk)
                expected = held.count
                read = held.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
                held = []
            }
            if read < 0 { return finish(sayingGoodbye(failure(of: Int32(clamping: read)))) }
            guard read == expected else { return finish(failure(of: NGHTTP2_ERR_PROTO.rawValue)) }
            if frames.isAtBoundary {
                flush()
                if events.sentGoAway != nil { break }
                // A server that sends PING or SETTINGS frames faster than their acknowledgements are written (it
                // does not read them) would make them pile up here without end.
                if events.acknowledgementsUnwritten > settings.maxPendingAcknowledgements {
                    _ = nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
                    flush()
                    return finish(
                        .flooded(
                            "more than \(settings.maxPendingAcknowledgements) acknowledgements of PING and SETTINGS "
                                + "frames waited to be written"))
                }
            }
        }
        flush()
        return endingRefusedTunnels(takeOutputs())
    }

    /// Ends the sending half of each tunnel whose final response in `outputs` refused it (not 2xx, RFC 8441, 5), so
    /// that its stream closes; returns `outputs`.
    private func endingRefusedTunnels(_ outputs: [Output]) -> [Output] {
        guard !events.tunnels.isEmpty else { return outputs }
        for case .head(let stream, let status, _) in outputs where !(200..<300).contains(status) {
            finishSending(on: stream)
        }
        flush()
        return outputs
    }

    /// The connection's byte stream ended (the peer closed it, or reading failed).
    package func receivedEnd() -> [Output] {
        guard !isClosed else { return [] }
        let hadStreams = !events.open.isEmpty
        return finish(events.sentGoAway ?? events.receivedGoAwayFailure ?? (hadStreams ? .closed : nil))
    }

    /// The bytes to write next, empty when there are none.
    package func outgoing() -> [UInt8] {
        flush()
        events.acknowledgementsUnwritten = 0
        defer { pending = [] }
        return pending
    }

    /// Moves what nghttp2 has to send into ``pending``.
    private func flush() {
        while true {
            var chunk: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &chunk)
            guard count > 0, let chunk else { return }
            pending.append(contentsOf: UnsafeBufferPointer(start: chunk, count: count))
        }
    }

    /// Whether the connection has ended: nghttp2 wants neither to read nor to write (after a `GOAWAY` both ways, or
    /// a protocol error).
    package var isFinished: Bool { isClosed || isDoneForNghttp2 }

    /// Whether nghttp2 wants neither to read nor to write.
    private var isDoneForNghttp2: Bool {
        nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    // MARK: Ending

    /// The outputs collected so far, with the connection's end when nghttp2 is done with it.
    private func takeOutputs() -> [Output] {
        var outputs = events.take()
        if let sent = events.sentGoAway {
            outputs += finish(sent)
        } else if isDoneForNghttp2 {
            outputs += finish(events.receivedGoAwayFailure)
        }
        return outputs
    }

    /// Ends the connection: every open stream fails with `failure` (or the connection's loss), and ``Output/closed(_:)``
    /// ends the outputs.
    private func finish(_ failure: HTTP2ConnectionFailure?) -> [Output] {
        guard !isClosed else { return events.take() }
        isClosed = true
        var outputs = events.take()
        let lost = failure ?? .closed
        for stream in events.open.sorted() {
            outputs.append(.failed(stream: stream, .connectionLost(lost)))
        }
        events.open.removeAll()
        events.bodies.removeAll()
        events.tunnels.removeAll()
        outputs.append(.closed(failure))
        return outputs
    }

    /// Queues a `GOAWAY` with `failure`'s code, unless one went out already, and returns `failure`: when nghttp2
    /// gives up on a connection itself (too many `CONTINUATION` frames, a flood), it closes it without saying why.
    private func sayingGoodbye(_ failure: HTTP2ConnectionFailure) -> HTTP2ConnectionFailure {
        flush()
        guard events.sentGoAway == nil else { return failure }
        let code: HTTP2ErrorCode =
            switch failure {
            case .protocolViolation(let code, _), .goAway(let code, _): code
            case .flooded: .enhanceYourCalm
            case .closed: .internalError
            }
        _ = nghttp2_session_terminate_session(session, code.rawValue)
        flush()
        return failure
    }

    /// The failure a negative result of `nghttp2_session_mem_recv` means.
    private func failure(of code: Int32) -> HTTP2ConnectionFailure {
        let reason = String(cString: nghttp2_strerror(code))
        if code == NGHTTP2_ERR_FLOODED.rawValue { return .flooded(reason) }
        return events.sentGoAway ?? .protocolViolation(.protocolError, events.lastError ?? reason)
    }

    /// Calls `body` with `fields` as nghttp2's name-value pairs, which point into one buffer for the call's length
    /// (nghttp2 copies them).
    static func withFields<T>(_ fields: [HTTPHeader], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> T) -> T {
        var bytes: [UInt8] = []
        var spans: [(name: Range<Int>, value: Range<Int>)] = []
        spans.reserveCapacity(fields.count)
        for field in fields {
            let nameStart = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: field.value.utf8)
            spans.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        // One byte more, so that the buffer has an address even when every field is empty.
        bytes.append(0)
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress
            var pairs = spans.map { span in
                nghttp2_nv(
                    name: base.map { $0 + span.name.lowerBound }, value: base.map { $0 + span.value.lowerBound },
                    namelen: span.name.count, valuelen: span.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return pairs.withUnsafeMutableBufferPointer { body($0) }
        }
    }
}

#endif
