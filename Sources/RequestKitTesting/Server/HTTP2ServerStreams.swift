#if canImport(CNghttp2)
import CNghttp2
import Foundation
import RequestKit

/// The HTTP/2 side of a ``ServerConnection`` in the server's HTTP/2 mode: nghttp2's server session frames the bytes,
/// and each stream's request goes through the same routes as an HTTP/1.1 one, its response going out as the client's
/// windows allow. The connection keeps the socket, the output queue and the timers; this object turns bytes read
/// into requests and responses into bytes to write.
///
/// Everything is touched only on the connection's loop; nghttp2 calls back only from inside
/// ``receive(_:)`` and ``flush()``.
///
/// ```swift
/// let streams = HTTP2ServerStreams(connection: connection, core: core, settings: http2)
/// bytes.withUnsafeBytes { streams.receive($0) }
/// ```
final class HTTP2ServerStreams: @unchecked Sendable {
    // Safe: every member is only touched on `loop`'s thread; handler threads hand results back with `loop.execute`.

    /// The bytes a response body may have waiting for the client's windows before its steps pause.
    private static let pendingLimit = 256 * 1024

    /// One request and its response.
    private final class Stream: @unchecked Sendable {
        // Safe: like its owner, touched only on the loop; handler threads only carry it back there.
        let id: Int32
        var fields: [(name: String, value: String)] = []
        var trailers: [(name: String, value: String)] = []
        var isHeadComplete = false
        var body = Data()
        var isTooLarge = false
        var receivedAt = ContinuousClock.now
        var isDispatched = false
        var ending: OnceAction?
        /// Response bytes the session has not taken yet, from `pendingStart` on.
        var pending: [UInt8] = []
        var pendingStart = 0
        /// How many response bytes were queued and taken in all, and who waits for a position to be taken.
        var queued = 0
        var taken = 0
        var waiters: [(position: Int, done: (Bool) -> Void)] = []
        var isBodyEnded = false
        var responseTrailers: [(name: String, value: String)] = []
        var isDeferred = false
        var steps: AnyIterator<BodyStep>?
        var timer: LoopTimer?
        var channel: ResponseChannel?
        var isClosed = false
        /// The body ends the connection once its bytes are written (a `close` step).
        var closesConnection = false

        init(id: Int32) { self.id = id }

        var pendingCount: Int { pending.count - pendingStart }
    }

    private unowned let connection: ServerConnection
    private let core: ServerCore
    private let loop: EventLoop
    private var session: OpaquePointer?
    private var streams: [Int32: Stream] = [:]
    private var isInsideSession = false
    private var needsFlush = false
    /// Waiters whose bytes the session took during the current send, told once those bytes are on the socket.
    private var takenWaiters: [(Bool) -> Void] = []
    /// Streams whose steps stopped for the window and go on once the session has taken their bytes.
    private var starved: Set<Int32> = []

    /// A session for `connection`, which sends its `SETTINGS` first; `nil` when nghttp2 cannot make one.
    init?(connection: ServerConnection, core: ServerCore, settings: TestServer.HTTP2) {
        self.connection = connection
        self.core = core
        self.loop = connection.loop
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0 else { return nil }
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(on: callbacks)
        var made: OpaquePointer?
        guard nghttp2_session_server_new(&made, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
            return nil
        }
        session = made
        var entries = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(clamping: max(0, settings.maxConcurrentStreams)))
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &entries, entries.count)
    }

    deinit { nghttp2_session_del(session) }

    /// Whether a request is still being read or answered.
    var hasOpenStreams: Bool { !streams.isEmpty }

    // MARK: From the connection

    /// Hands the session bytes read from the client, then writes what it has to say. Returns `false` when the
    /// bytes broke the protocol and the connection should close once its last bytes (a `GOAWAY`) are written.
    @discardableResult
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let session, let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        isInsideSession = true
        let result = nghttp2_session_mem_recv(session, base, bytes.count)
        isInsideSession = false
        flush()
        if result < 0 {
            connection.http2Ended()
            return false
        }
        return true
    }

    /// Writes whatever the session has to send, then plays the streams that waited for room.
    func flush() {
        guard let session else { return }
        guard !isInsideSession else {
            needsFlush = true
            return
        }
        needsFlush = false
        var output = Data()
        isInsideSession = true
        while true {
            var pointer: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &pointer)
            guard count > 0, let pointer else { break }
            output.append(pointer, count: count)
        }
        isInsideSession = false
        // A closure's write returns once its bytes are on the socket, as over HTTP/1.1, so that cutting the
        // connection next cannot lose them.
        let written = takenWaiters
        takenWaiters = []
        if !output.isEmpty {
            connection.enqueue(output) { delivered in for done in written { done(delivered) } }
        } else {
            for done in written { done(true) }
        }
        if streams.values.contains(where: { $0.closesConnection && $0.pendingCount == 0 }) {
            return connection.shutDownWhenWritten()
        }
        let ready = starved.filter { streams[$0].map { $0.pendingCount < Self.pendingLimit } ?? false }
        starved.subtract(ready)
        for id in ready {
            if let stream = streams[id] { advance(stream) }
        }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            connection.http2Ended()
        } else if needsFlush {
            flush()
        }
    }

    /// Says `GOAWAY` (no error) before the connection closes for idleness or because the server stops.
    func goAway() {
        guard let session else { return }
        nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
        flush()
    }

    /// The connection closed: every stream still open ends, and its response with it.
    func connectionClosed() {
        for stream in streams.values { close(stream, completed: false) }
        streams = [:]
    }

    // MARK: Requests

    private func streamOpened(_ id: Int32) {
        streams[id] = Stream(id: id)
    }

    private func field(_ name: String, _ value: String, on id: Int32) {
        guard let stream = streams[id] else { return }
        if stream.isHeadComplete {
            stream.trailers.append((name, value))
        } else {
            stream.fields.append((name, value))
        }
    }

    private func bodyBytes(_ bytes: UnsafeBufferPointer<UInt8>, on id: Int32) {
        guard let stream = streams[id], !stream.isTooLarge else { return }
        if stream.body.count + bytes.count > core.configuration.maxBodyBytes {
            stream.isTooLarge = true
            stream.body = Data()
        } else {
            stream.body.append(bytes)
        }
    }

    private func frameReceived(type: UInt8, flags: UInt8, on id: Int32) {
        guard let stream = streams[id] else { return }
        if type == UInt8(NGHTTP2_HEADERS.rawValue) { stream.isHeadComplete = true }
        if flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 { dispatch(stream) }
    }

    /// The request is whole: it goes through the routes as an HTTP/1.1 request would.
    private func dispatch(_ stream: Stream) {
        guard !stream.isDispatched else { return }
        stream.isDispatched = true
        if stream.isTooLarge {
            core.requestRejected()
            return start(
                stream, .text("request body too large\n", status: 413), for: TestRequest(method: "GET", target: "/"))
        }
        var method = "GET"
        var target = "/"
        var authority: String?
        var headers: [(name: String, value: String)] = []
        var cookies: [String] = []
        for (name, value) in stream.fields {
            switch name {
            case ":method": method = value
            case ":path": target = value
            case ":authority": authority = value
            case "cookie": cookies.append(value)
            default: if !name.hasPrefix(":") { headers.append((name, value)) }
            }
        }
        if let authority, !headers.contains(where: { $0.name == "host" }) { headers.insert(("host", authority), at: 0) }
        // RFC 9113 §8.2.3: cookie fields split over HTTP/2 are joined again for an HTTP/1.1 view of the request.
        if !cookies.isEmpty { headers.append(("cookie", cookies.joined(separator: "; "))) }
        let request = TestRequest(
            method: method, target: target, headers: headers, body: stream.body, httpVersion: "HTTP/2.0",
            trailers: stream.trailers, connectionID: connection.id, receivedAt: stream.receivedAt)
        stream.ending = OnceAction { [core] in core.requestEnding() }
        core.requestStarted()
        core.requestReceived(request)
        switch core.route(for: request) {
        case .response(let response):
            respond(stream, response, for: request)
        case .handler(let handler, let routed):
            core.runOnHandlerThread { [self] in
                let response = handler(routed)
                loop.execute { [self] in
                    respond(stream, response, for: request)
                    flush()
                }
            }
        }
    }

    // MARK: Responses

    private func respond(_ stream: Stream, _ response: TestResponse, for request: TestRequest) {
        guard !stream.isClosed else { return }
        waitForRelease(
            stream, response, for: request, until: response.hold.map { .now + $0.longest },
            checkingAfter: ResponseHold.firstCheckInterval, delay: response.delay)
    }

    /// Waits on loop timers while the response's hold holds it back, then for its delay, as over HTTP/1.1.
    private func waitForRelease(
        _ stream: Stream, _ response: TestResponse, for request: TestRequest,
        until deadline: ContinuousClock.Instant?, checkingAfter interval: Duration, delay: Duration?
    ) {
        guard !stream.isClosed else { return }
        if let hold = response.hold, let deadline, ContinuousClock.now < deadline, !hold.isReleased() {
            let next = min(interval * 2, ResponseHold.longestCheckInterval)
            stream.timer = loop.schedule(after: interval.timeInterval) { [self] in
                stream.timer = nil
                waitForRelease(stream, response, for: request, until: deadline, checkingAfter: next, delay: delay)
            }
            return
        }
        guard let delay else { return start(stream, response, for: request) }
        stream.timer = loop.schedule(after: delay.timeInterval) { [self] in
            stream.timer = nil
            start(stream, response, for: request)
            flush()
        }
    }

    private func start(_ stream: Stream, _ response: TestResponse, for request: TestRequest) {
        guard let session, !stream.isClosed else { return }
        let plan = ResponsePlan(response, for: request, keepAlive: true)
        if plan.framing == .raw {
            // Raw bytes are an HTTP/1.1 response written by hand, after which the connection closes: over HTTP/2
            // the connection closes without them, as a server that died would close it.
            return connection.shutDownSocket()
        }
        let fields = Self.responseFields(response)
        if plan.discardsBody {
            _ = Self.withFields(fields) { nghttp2_submit_response(session, stream.id, $0, $1, nil) }
            return flush()
        }
        var provider = nghttp2_data_provider()
        provider.read_callback = { session, id, buffer, length, flags, _, context in
            guard let streams = owner(context), let buffer, let flags else {
                return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
            }
            return streams.provide(id, into: buffer, length, flags: flags, session: session)
        }
        switch plan.source {
        case .bytes:
            if case .data(let data) = response.body { append(data, to: stream) }
            stream.isBodyEnded = true
            _ = Self.withFields(fields) { nghttp2_submit_response(session, stream.id, $0, $1, &provider) }
        case .steps(let source):
            stream.steps = source.make()
            _ = Self.withFields(fields) { nghttp2_submit_response(session, stream.id, $0, $1, &provider) }
            advance(stream)
        case .closure(let write):
            _ = Self.withFields(fields) { nghttp2_submit_response(session, stream.id, $0, $1, &provider) }
            run(write, for: stream)
        }
        flush()
    }

    /// Plays body steps until they pause, wait for the client's window, or end.
    private func advance(_ stream: Stream) {
        while !stream.isClosed, stream.timer == nil, let steps = stream.steps {
            guard stream.pendingCount < Self.pendingLimit else {
                starved.insert(stream.id)
                return
            }
            guard let step = steps.next() else {
                stream.steps = nil
                return endBody(stream)
            }
            switch step {
            case .write(let data):
                append(data, to: stream)
            case .writeRaw:
                stream.steps = nil
                connection.shutDownSocket()
            case .pause(let duration):
                stream.timer = loop.schedule(after: duration.timeInterval) { [self] in
                    stream.timer = nil
                    advance(stream)
                    flush()
                }
            case .finish(let trailers):
                stream.steps = nil
                stream.responseTrailers = trailers
                endBody(stream)
            case .close:
                stream.steps = nil
                stream.closesConnection = true
                needsFlush = true
            }
        }
    }

    /// Runs a body closure on a handler thread; its writes reach the stream through a ``ResponseChannel``.
    private func run(_ write: @escaping @Sendable (TestResponseWriter) throws -> Void, for stream: Stream) {
        let channel = ResponseChannel(
            loop: loop,
            deliver: { [self] data, done in
                guard !stream.isClosed else { return done(false) }
                append(data, to: stream, done: done)
                flush()
            },
            shutDown: { [connection] in connection.shutDownSocket() },
            wasCut: { [connection] in connection.cut() })
        stream.channel = channel
        let writer = TestResponseWriter(channel: channel, framing: .identity, discardsBody: false)
        core.runOnHandlerThread { [self] in
            var failed = false
            do { try write(writer) } catch { failed = true }
            loop.execute { [self] in
                stream.channel = nil
                guard !stream.isClosed else { return }
                if failed {
                    reset(stream, code: NGHTTP2_INTERNAL_ERROR)
                } else {
                    endBody(stream)
                }
                flush()
            }
        }
    }

    private func append(_ data: Data, to stream: Stream, done: ((Bool) -> Void)? = nil) {
        stream.pending.append(contentsOf: data)
        stream.queued += data.count
        if let done { stream.waiters.append((stream.queued, done)) }
        resume(stream)
    }

    private func endBody(_ stream: Stream) {
        stream.isBodyEnded = true
        resume(stream)
    }

    private func resume(_ stream: Stream) {
        guard stream.isDeferred, let session else { return }
        stream.isDeferred = false
        nghttp2_session_resume_data(session, stream.id)
        needsFlush = true
    }

    private func reset(_ stream: Stream, code: nghttp2_error_code) {
        guard let session else { return }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, UInt32(code.rawValue))
    }

    /// nghttp2 asks for up to `length` bytes of the stream's body: what is pending, the end (with trailers), or
    /// "later" while the body is still being written.
    private func provide(
        _ id: Int32, into buffer: UnsafeMutablePointer<UInt8>, _ length: Int, flags: UnsafeMutablePointer<UInt32>,
        session: OpaquePointer?
    ) -> Int {
        guard let stream = streams[id] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, stream.pendingCount)
        if count > 0 {
            stream.pending.withUnsafeBufferPointer { pending in
                if let base = pending.baseAddress {
                    buffer.update(from: base + stream.pendingStart, count: count)
                }
            }
            stream.pendingStart += count
            stream.taken += count
            if stream.pendingStart == stream.pending.count {
                stream.pending.removeAll(keepingCapacity: true)
                stream.pendingStart = 0
            }
            while let first = stream.waiters.first, first.position <= stream.taken {
                stream.waiters.removeFirst()
                takenWaiters.append(first.done)
            }
        }
        guard stream.pendingCount == 0 else { return count }
        guard stream.isBodyEnded else {
            if count > 0 { return count }
            stream.isDeferred = true
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        if !stream.responseTrailers.isEmpty {
            flags.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
            let trailers = stream.responseTrailers.map { ($0.name.lowercased(), $0.value) }
            Self.withFields(trailers) { _ = nghttp2_submit_trailer(session, id, $0, $1) }
        }
        return count
    }

    // MARK: Closing

    private func streamClosed(_ id: Int32, code: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        close(stream, completed: code == NGHTTP2_NO_ERROR.rawValue)
    }

    private func close(_ stream: Stream, completed: Bool) {
        stream.isClosed = true
        stream.steps = nil
        if let timer = stream.timer { loop.cancel(timer) }
        stream.timer = nil
        stream.channel?.markGone()
        let waiters = stream.waiters
        stream.waiters = []
        for waiter in waiters { waiter.done(false) }
        starved.remove(stream.id)
        guard stream.isDispatched, let ending = stream.ending else { return }
        ending.run()
        if !completed { core.requestAborted() }
    }

    // MARK: Fields

    /// The response head as HTTP/2 fields: `:status` first, lower-case names, no connection-specific fields, with
    /// the `Content-Length` of a body given whole and a `Date`, as the HTTP/1.1 head has them.
    private static func responseFields(_ response: TestResponse) -> [(String, String)] {
        let connectionSpecific: Set<String> = [
            "connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection",
        ]
        var fields = [(":status", String(response.status))]
        for (name, value) in response.headers where !connectionSpecific.contains(name.lowercased()) {
            fields.append((name.lowercased(), value))
        }
        if case .data(let data) = response.body, response.header("Content-Length") == nil,
            !HTTPStatusReason.forbidsBody(response.status)
        {
            fields.append(("content-length", String(data.count)))
        }
        if response.header("Date") == nil { fields.append(("date", HTTPDate.string(from: Date()))) }
        return fields
    }

    /// Calls `body` with nghttp2's view of `fields`, valid for the call (nghttp2 copies what it keeps).
    private static func withFields<T>(
        _ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> T
    ) -> T {
        var bytes: [UInt8] = []
        var ranges: [(name: Range<Int>, value: Range<Int>)] = []
        for (name, value) in fields {
            let nameStart = bytes.count
            bytes.append(contentsOf: name.utf8)
            let valueStart = bytes.count
            bytes.append(contentsOf: value.utf8)
            ranges.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
        bytes.append(0)  // never empty, so the base address exists
        return bytes.withUnsafeMutableBufferPointer { storage in
            var none = nghttp2_nv()
            guard let base = storage.baseAddress else { return body(&none, 0) }
            let entries = ranges.map { range in
                nghttp2_nv(
                    name: base + range.name.lowerBound, value: base + range.value.lowerBound,
                    namelen: range.name.count, valuelen: range.value.count,
                    flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return entries.withUnsafeBufferPointer { list in
                guard let start = list.baseAddress else { return body(&none, 0) }
                return body(start, list.count)
            }
        }
    }

    // MARK: nghttp2's callbacks

    private static func install(on callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, context in
            guard let frame, let streams = owner(context) else { return 0 }
            if UInt32(frame.pointee.hd.type) == NGHTTP2_HEADERS.rawValue,
                frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
            {
                streams.streamOpened(frame.pointee.hd.stream_id)
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, context in
            guard let frame, let name, let value, let streams = owner(context) else { return 0 }
            streams.field(
                String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self),
                on: frame.pointee.hd.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, context in
            guard let data, let streams = owner(context) else { return 0 }
            streams.bodyBytes(UnsafeBufferPointer(start: data, count: length), on: id)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            guard let frame, let streams = owner(context) else { return 0 }
            let header = frame.pointee.hd
            streams.frameReceived(type: header.type, flags: header.flags, on: header.stream_id)
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, context in
            owner(context)?.streamClosed(id, code: code)
            return 0
        }
    }
}

/// The ``HTTP2ServerStreams`` behind nghttp2's user data.
private func owner(_ context: UnsafeMutableRawPointer?) -> HTTP2ServerStreams? {
    context.map { Unmanaged<HTTP2ServerStreams>.fromOpaque($0).takeUnretainedValue() }
}
#endif
