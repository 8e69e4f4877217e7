#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2

/// One HTTP/2 connection, driven by readiness on its event loop: many requests at once, each on a stream of its own.
///
/// Its ``Connector`` opens the socket (and the TLS handshake, whose ALPN picked `h2`, or a prior-knowledge h2c
/// connection); the pool makes this connection of it and starts its first job (``start(with:)``). The protocol is the ``HTTP2Session``'s
/// (framing, HPACK, stream states, flow control, what each ending means); this class moves bytes between it and the
/// socket, starts each job on a stream, and delivers what comes back: a whole response, or a head and then a body
/// that streams at its consumer's pace (the stream's window stays shut while the consumer's buffer is full).
///
/// A stream the server refused, or went away below, is sent again through the pool (counted as never sent); a
/// server going away takes the connection out of the pool's rotation, and it closes after its last stream. Each
/// stream has the request's idle timeout (the stream is reset with `CANCEL` when it passes), and so does a
/// cancelled request.
///
/// Its loop owns it: every entry point runs on the loop's thread.
///
/// ```swift
/// let connection = try HTTP2Connection(id: id, key: key, loop: loop, pool: pool, stream: stream, limits: limits, facts: nil)
/// connection.start(with: job)
/// ```
final class HTTP2Connection: EventLoopHandler, @unchecked Sendable {
    // Safe: every mutable field is touched only on `loop`'s thread (the entry points hop onto it).

    /// The connection's identifier in its pool's machine.
    let id: ConnectionPool.Machine.ConnectionID
    /// The host and port it goes to.
    let key: ConnectionKey
    /// The loop that drives it.
    let loop: EventLoop
    private weak var pool: ConnectionPool?
    private var stream: (any ByteStream)?
    private var descriptor: Int32
    private let session: HTTP2Session
    private let facts: ConnectionFacts?
    private let buffer: UnsafeMutableRawBufferPointer
    private var interest: LoopInterest = []

    /// The streams open, by id.
    private var streams: [Int32: HTTP2Exchange] = [:]
    /// Jobs the pool gave it that wait for the server to allow another stream.
    private var queued: [RequestJob] = []
    /// Bytes the session made that the socket has not taken yet, from ``outgoingOffset``.
    private var outgoing: [UInt8] = []
    private var outgoingOffset = 0
    /// How many streams it started: a job after the first runs on a reused connection.
    private var startedCount = 0
    /// The stream limit the pool was last told.
    private var announcedCapacity: Int
    private var isClosed = false
    /// Whether a ``flush()`` is queued on the loop: the streams started meanwhile go out in one write.
    private var isFlushQueued = false
    /// Streams started whose first bytes the socket has not taken yet, for their metrics' `requestSent`.
    private var unsent: [(id: Int32, exchange: HTTP2Exchange)] = []
    private var timer: LoopTimer?
    private var timerDeadline: UInt64?
    /// When the idle connection checks that the server is still there (nil: never).
    private var liveness: HTTP2Liveness?
    /// The liveness timer: a PING when it fires with the connection idle, or the end of the wait for its answer.
    private var pingTimer: LoopTimer?
    /// How many liveness PINGs the server answered (read from any thread).
    let pingsAnswered = AtomicWord()

    /// A connection over `stream`, whose handshake is done; it writes the connection preface when it takes over.
    ///
    /// - Throws: ``RequestError`` when nghttp2 cannot make the session.
    init(
        id: ConnectionPool.Machine.ConnectionID, key: ConnectionKey, loop: EventLoop,
        pool: ConnectionPool, stream: any ByteStream, limits: ConnectionLimits, facts: ConnectionFacts?
    ) throws(RequestError) {
        liveness = pool.http2PingInterval.map(HTTP2Liveness.init(interval:))
        self.id = id
        self.key = key
        self.loop = loop
        self.pool = pool
        self.stream = stream
        self.descriptor = stream.descriptor
        self.facts = facts
        var settings = HTTP2Settings()
        settings.maxHeaderListBytes = limits.head.maxHeadBytes
        do {
            session = try HTTP2Session(settings: settings)
        } catch {
            throw RequestError.transport(error, detail: error.description)
        }
        announcedCapacity = session.maxConcurrentStreams
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        stream?.close()
        buffer.deallocate()
    }

    /// How many streams the server allows at once, as the pool was last told.
    var capacity: Int { announcedCapacity }

    // MARK: Entry points (on the loop)

    /// Starts watching the socket its connector opened, and `job` on the first stream.
    func start(with job: RequestJob) {
        guard let pool else {
            return job.finish(.failed(ExchangeFailure.closedBeforeResponse(nil), wasReused: false))
        }
        do {
            try loop.register(descriptor, interest: .readable, handler: self)
            interest = .readable
        } catch {
            stream?.close()
            stream = nil
            isClosed = true
            pool.release(.http2(self), isReusable: false)
            return job.finish(.failed(error, wasReused: false))
        }
        run(job)
        // The handshake may have read the server's first frames already.
        readAvailable()
    }

    /// Cancels `job` if it is still this connection's: its stream is reset; the connection goes on.
    func cancel(_ job: RequestJob) {
        if let index = queued.firstIndex(where: { $0 === job }) {
            queued.remove(at: index)
            release(isReusable: !isClosed)
            return job.finish(.cancelled)
        }
        guard let (streamID, exchange) = streams.first(where: { $0.value.job === job }), !exchange.isDelivered
        else { return }
        session.cancel(streamID)
        streams[streamID] = nil
        release(isReusable: !isClosed)
        job.finish(.cancelled)
        startQueued()
        flush()
    }

    /// Closes the connection once the pool let it go (it was idle, or its server went away and its last stream
    /// ended).
    func closeIdle() {
        close()
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        guard descriptor == self.descriptor, !isClosed else { return }
        if writable { flush() }
        if readable { readAvailable() }
    }

    // MARK: Starting streams

    /// Starts `job` on a stream of its own, or queues it until the server allows one more.
    func run(_ job: RequestJob) {
        if job.wasCancelled {
            release(isReusable: !isClosed)
            return job.finish(.cancelled)
        }
        guard !isClosed else { return sendElsewhere(job) }
        let head: HTTP2RequestHead
        let body: HTTP2RequestBody?
        do {
            head = try HTTP2RequestHead(http1Head: job.head, scheme: key.isSecure ? "https" : "http")
            if let reader = try job.makeBodyReader?() {
                body = .reader(reader)
            } else {
                body = job.body.isEmpty ? nil : .bytes(job.body)
            }
        } catch {
            release(isReusable: true)
            return job.finish(.failed(error, wasReused: startedCount > 0))
        }
        let streamID: Int32
        do {
            streamID = try session.request(head, body: body)
        } catch {
            switch error {
            case .noStreamAvailable:
                queued.append(job)
                if let deadline = job.idleDeadline { arm(deadline) }
            case .connectionUnavailable:
                sendElsewhere(job)
            case .invalidRequest(let reason):
                release(isReusable: true)
                let error = RequestError.transport(
                    POSIXError(.EINVAL), detail: "the request cannot go over HTTP/2: \(reason)")
                job.finish(.failed(error, wasReused: startedCount > 0))
            }
            return
        }
        job.record.assign(isReused: startedCount > 0, at: loop.now())
        job.record.connection = facts
        job.record.noteSendStart(at: loop.now())
        startedCount += 1
        // The request's idle clock goes on from its submission: waiting for a stream is no progress.
        let exchange = HTTP2Exchange(job: job, now: job.idleClockStart)
        streams[streamID] = exchange
        updateLiveness { $0.becameBusy() }
        if job.record.isRecording { unsent.append((streamID, exchange)) }
        queueFlush()
        armTimer(for: exchange)
    }

    /// Gives `job` back to the pool to run on another connection: this one takes no new streams.
    private func sendElsewhere(_ job: RequestJob) {
        _ = pool?.goingAway(self)
        release(isReusable: true)
        job.pool.submit(job)
    }

    /// Starts queued jobs while the server allows more streams.
    private func startQueued() {
        while !queued.isEmpty, session.canOpenStream, !isClosed {
            run(queued.removeFirst())
        }
    }

    // MARK: Bytes

    /// Reads what the socket has and hands it to the session, until it has nothing more now or the turn's budget is
    /// spent: a server that sends frames without end (which flow control does not limit) cannot keep the loop from
    /// its timers and its other connections.
    private func readAvailable() {
        guard let stream else { return }
        var budget = EventLoop.readBudget
        while !isClosed {
            if budget <= 0 {
                // The socket is still readable, so the loop comes back to it in its next turn; bytes the TLS layer
                // holds do not make it readable, so the next turn is asked for.
                if stream.hasBufferedBytes { loop.execute { [weak self] in self?.readAvailable() } }
                return flush()
            }
            let result: ByteStreamResult
            do {
                result = try stream.read(into: buffer)
            } catch {
                return handle(session.receivedEnd(), lostWith: error)
            }
            switch result {
            case .transferred(let count):
                budget -= count
                let outputs = session.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                handle(outputs)
            case .endOfStream:
                return handle(session.receivedEnd())
            case .wouldBlock:
                if stream.hasBufferedBytes { continue }
                // What the frames read call for (acknowledgements, window updates, new streams) in one write.
                return flush()
            }
        }
    }

    /// Queues one ``flush()`` behind what the loop has queued already: the requests handed to the loop together go
    /// out in one write (one TLS record, one system call) rather than one each.
    private func queueFlush() {
        guard !isFlushQueued else { return }
        isFlushQueued = true
        loop.execute { [self] in
            isFlushQueued = false
            flush()
        }
    }

    /// Writes what the session has to send; waits for room when the socket takes no more.
    private func flush() {
        guard let stream, !isClosed else { return }
        // The session's bytes are taken only once those taken before are written: what it still holds counts
        // toward its limits (the acknowledgements a server that does not read makes pile up), where bytes taken
        // into a socket that takes no more would pile up here without any.
        if outgoingOffset == outgoing.count {
            outgoing = session.outgoing()
            outgoingOffset = 0
        }
        while outgoingOffset < outgoing.count {
            let result: ByteStreamResult
            do {
                result = try outgoing.withUnsafeBytes {
                    try stream.write(UnsafeRawBufferPointer(rebasing: $0[outgoingOffset...]))
                }
            } catch {
                return handle(session.receivedEnd(), lostWith: error)
            }
            switch result {
            case .transferred(let count):
                outgoingOffset += count
            case .endOfStream:
                return handle(session.receivedEnd())
            case .wouldBlock:
                setInterest([.readable, .writable])
                return
            }
            if outgoingOffset == outgoing.count {
                outgoing = session.outgoing()
                outgoingOffset = 0
            }
        }
        outgoing.removeAll(keepingCapacity: true)
        outgoingOffset = 0
        if !unsent.isEmpty {
            let now = loop.now()
            // Only while the stream is open: an ended job's record is its task's.
            for (id, exchange) in unsent where streams[id] === exchange { exchange.job.record.sendEnd = now }
            unsent.removeAll(keepingCapacity: true)
        }
        setInterest(.readable)
    }

    private func setInterest(_ new: LoopInterest) {
        guard descriptor >= 0, new != interest else { return }
        do {
            try loop.setInterest(new, for: descriptor)
            interest = new
        } catch {
            handle(session.receivedEnd(), lostWith: error)
        }
    }

    // MARK: What the server sent

    private func handle(_ outputs: [HTTP2Session.Output], lostWith error: (any Error)? = nil) {
        for output in outputs {
            switch output {
            case .informational:
                continue
            case .head(let streamID, let status, let headers):
                headArrived(on: streamID, status: status, headers: headers)
            case .data(let streamID, let bytes):
                dataArrived(bytes, on: streamID)
            case .trailers:
                continue
            case .end(let streamID):
                ended(streamID)
            case .retry(let streamID, let isRefused):
                retry(streamID, isRefused: isRefused)
            case .failed(let streamID, let failure):
                guard let exchange = streams.removeValue(forKey: streamID) else { continue }
                release(isReusable: !isClosed && session.isAvailable)
                fail(exchange, with: Self.requestError(failure, key: key, hadHead: exchange.head != nil))
            case .goingAway:
                wentAway()
            case .pingAnswered:
                pingAnswered()
            case .closed(let failure):
                closed(failure, error: error)
            }
        }
        if let error, !isClosed { closed(.protocolViolation(.internalError, "\(error)"), error: error) }
        if session.maxConcurrentStreams != announcedCapacity, !isClosed, session.isAvailable {
            announcedCapacity = session.maxConcurrentStreams
            pool?.capacityChanged(self, to: announcedCapacity)
        }
        startQueued()
        if !isClosed, !session.isAvailable, streams.isEmpty, queued.isEmpty {
            close()
            pool?.discard(.http2(self))
        }
        armPingIfIdle()
    }

    private func headArrived(on streamID: Int32, status: Int, headers: HTTPHeaders) {
        guard let exchange = streams[streamID] else { return }
        let job = exchange.job
        let head = ResponseHead(minorVersion: 1, status: status, reason: "", fields: headers.fields)
        exchange.head = head
        exchange.lastActivity = loop.now()
        switch job.mode {
        case .buffered(let bodyLimit):
            if let announced = head.value(of: "content-length").flatMap(Int.init), announced > bodyLimit {
                return abandon(streamID, failing: ResponseTooLarge(head: head, isRatio: false, limit: bodyLimit))
            }
        case .streaming(let options):
            do {
                try startDelivery(of: exchange, on: streamID, head: head, options: options)
            } catch {
                return abandon(streamID, failing: error)
            }
        }
    }

    /// Hands a streamed response's head to its task; the body follows into the options' continuation.
    private func startDelivery(
        of exchange: HTTP2Exchange, on streamID: Int32, head: ResponseHead, options: StreamOptions
    ) throws {
        let bodyLimit = options.responseLimits.maxStreamedBodyBytes ?? .max
        exchange.bodyLimit = bodyLimit
        exchange.maxRatio = options.responseLimits.maxDecompressionRatio
        exchange.contentDecoder = try ContentDecoder(
            codings: head.tokens(of: "Content-Encoding"), maxBytes: bodyLimit,
            maxRatio: options.responseLimits.maxDecompressionRatio,
            ratioAllowance: ResponseLimits.decompressionAllowance)
        let continuation = options.continuation
        let loop = loop
        // A connection never reuses a stream id: the id alone names the exchange.
        continuation.onDemand = { [weak self] in
            loop.execute { self?.demanded(on: streamID) }
        }
        continuation.onTermination = { [weak self] in
            loop.execute { self?.abandon(streamID, failing: CancellationError()) }
        }
        exchange.isDelivered = true
        exchange.job.finish(.head(head))
    }

    private func dataArrived(_ bytes: Data, on streamID: Int32) {
        guard let exchange = streams[streamID] else { return }
        let now = loop.now()
        exchange.lastActivity = now
        exchange.job.record.received(bytes.count, at: now)
        exchange.wireBytes += bytes.count
        switch exchange.job.mode {
        case .buffered(let bodyLimit):
            guard exchange.wireBytes <= bodyLimit, exchange.head != nil else {
                let head = exchange.head ?? ResponseHead(minorVersion: 1, status: 0, reason: "", fields: [])
                return abandon(streamID, failing: ResponseTooLarge(head: head, isRatio: false, limit: bodyLimit))
            }
            exchange.body.append(bytes)
            session.consumed(bytes.count, on: streamID)
        case .streaming(let options):
            let continuation = options.continuation
            do {
                if exchange.wireBytes > exchange.bodyLimit, let head = exchange.head {
                    throw ResponseTooLarge(head: head, isRatio: false, limit: exchange.bodyLimit)
                }
                let plain = try exchange.contentDecoder?.decode(bytes) ?? bytes
                exchange.bodyBytes += plain.count
                if continuation.isTerminated { throw CancellationError() }
                if plain.isEmpty || continuation.yield(plain) {
                    session.consumed(bytes.count, on: streamID)
                } else {
                    // The consumer's buffer is full: the stream's window stays shut until it reads.
                    exchange.unconsumed += bytes.count
                }
            } catch {
                abandon(streamID, failing: error)
            }
        }
    }

    /// The consumer of a streamed body read some of it: the bytes it was given open the stream's window again.
    private func demanded(on streamID: Int32) {
        guard let exchange = streams[streamID], exchange.unconsumed > 0 else { return }
        session.consumed(exchange.unconsumed, on: streamID)
        exchange.unconsumed = 0
        exchange.lastActivity = loop.now()
        armTimer(for: exchange)
        flush()
    }

    private func ended(_ streamID: Int32) {
        guard let exchange = streams.removeValue(forKey: streamID) else { return }
        let now = loop.now()
        exchange.job.record.noteComplete(at: now)
        guard let head = exchange.head else {
            release(isReusable: session.isAvailable)
            return fail(exchange, with: HTTP1ParseError.truncatedHead)
        }
        switch exchange.job.mode {
        case .buffered:
            release(isReusable: session.isAvailable)
            exchange.job.finish(.response((head: head, body: exchange.body, isReusable: true)))
        case .streaming(let options):
            do {
                try exchange.contentDecoder?.finish()
            } catch {
                release(isReusable: session.isAvailable)
                return fail(exchange, with: error)
            }
            release(isReusable: session.isAvailable)
            options.continuation.finish(attempt: attempt(of: exchange, url: options.url, end: now))
        }
    }

    /// The server did not process the stream: its request goes to the pool again, counted as never sent.
    private func retry(_ streamID: Int32, isRefused: Bool) {
        guard let exchange = streams.removeValue(forKey: streamID) else { return }
        let job = exchange.job
        release(isReusable: !isClosed && session.isAvailable)
        guard !exchange.isDelivered else { return }
        if isRefused {
            job.refusals += 1
            guard job.refusals <= RequestJob.maxRefusals else {
                return fail(
                    exchange,
                    with: RequestError.transport(
                        HTTP2StreamFailure.reset(.refusedStream),
                        detail: "the server refused the request's stream \(job.refusals) times; it was not sent again"))
            }
        } else {
            job.unprocessedResends += 1
            guard job.unprocessedResends <= RequestJob.maxUnprocessedResends else {
                return fail(
                    exchange,
                    with: RequestError.transport(
                        HTTP2StreamFailure.connectionLost(.closed),
                        detail: "servers going away did not process the request \(job.unprocessedResends) times; it "
                            + "was not sent again"))
            }
        }
        job.record.restart()
        job.pool.submit(job)
    }

    /// The server sent GOAWAY: no new streams here. Queued jobs go elsewhere; the open ones below the server's last
    /// stream go on, and the connection closes after the last of them.
    private func wentAway() {
        guard let pool else { return }
        let isIdle = pool.goingAway(self)
        let waiting = queued
        queued = []
        for job in waiting {
            release(isReusable: true)
            job.pool.submit(job)
        }
        if isIdle, streams.isEmpty { close() }
    }

    /// The connection is over: every stream still open fails.
    private func closed(_ failure: HTTP2ConnectionFailure?, error: (any Error)?) {
        let open = streams
        streams = [:]
        let waiting = queued
        queued = []
        flush()
        close()
        let reason = failure ?? .closed
        for (_, exchange) in open {
            release(isReusable: false)
            fail(exchange, with: Self.requestError(.connectionLost(reason), key: key, hadHead: exchange.head != nil))
        }
        for job in waiting {
            release(isReusable: false)
            job.pool.submit(job)
        }
        if open.isEmpty, waiting.isEmpty { pool?.discard(.http2(self)) }
    }

    // MARK: Ending streams

    /// Resets `streamID` (its response is no longer wanted, or broke a limit) and fails its request with `error`.
    private func abandon(_ streamID: Int32, failing error: any Error) {
        guard let exchange = streams.removeValue(forKey: streamID) else { return }
        session.cancel(streamID)
        release(isReusable: !isClosed && session.isAvailable)
        fail(exchange, with: error)
        // Its stream's room goes to a job waiting for one.
        startQueued()
        flush()
    }

    /// Fails `exchange`'s request: its task, or the consumer of its streamed body.
    private func fail(_ exchange: HTTP2Exchange, with error: any Error) {
        let job = exchange.job
        guard exchange.isDelivered, case .streaming(let options) = job.mode else {
            if error is CancellationError || job.wasCancelled { return job.finish(.cancelled) }
            return job.finish(.failed(error, wasReused: false))
        }
        let failure: RequestError
        if error is CancellationError {
            failure = RequestError.cancelled(underlyingError: error)
        } else if let head = exchange.head,
            let tooLarge = ResponseTooLarge(
                error, head: head, bodyLimit: exchange.bodyLimit, maxRatio: exchange.maxRatio)
        {
            failure = tooLarge.requestError(url: options.url)
        } else {
            failure = NativeTransport.requestError(for: error, idleTimeout: job.idleTimeout, key: key)
        }
        options.continuation.finish(
            throwing: failure, attempt: attempt(of: exchange, url: options.url, end: loop.now()))
    }

    /// The attempt of a streamed body's request as it ends at `end`; nil when the transport records no metrics.
    private func attempt(of exchange: HTTP2Exchange, url: URL, end: UInt64) -> RequestMetrics.Attempt? {
        let record = exchange.job.record
        guard record.isRecording else { return nil }
        return record.attempt(
            url: url, status: exchange.head.map { HTTPStatus(code: $0.status) }, bodyBytes: exchange.bodyBytes,
            end: end)
    }

    /// The ``RequestError`` for a stream that ended without its whole response, worded as over HTTP/1.1 when no
    /// part of the response (`hadHead` false) had arrived.
    static func requestError(_ failure: HTTP2StreamFailure, key: ConnectionKey, hadHead: Bool) -> RequestError {
        switch failure {
        case .connectionLost(.closed):
            return RequestError.connectionFailed(
                .connectionReset, host: key.host, port: key.port, underlyingError: failure,
                reason: hadHead
                    ? "the HTTP/2 connection closed before the response was whole"
                    : "the server closed the connection before a response")
        default:
            return RequestError.transport(failure, detail: failure.description)
        }
    }

    /// Gives one stream's room back to the pool (its request ended, or went elsewhere): kept when `isReusable`.
    private func release(isReusable: Bool) {
        pool?.release(.http2(self), isReusable: isReusable)
        armPingIfIdle()
    }

    /// Closes the socket and stops the timers; nothing more is read or written.
    private func close() {
        guard !isClosed else { return }
        isClosed = true
        if descriptor >= 0 { loop.deregister(descriptor) }
        stream?.close()
        stream = nil
        descriptor = -1
        if let timer { loop.cancel(timer) }
        timer = nil
        timerDeadline = nil
        if let pingTimer { loop.cancel(pingTimer) }
        pingTimer = nil
    }

    // MARK: Liveness

    /// Whether the connection has nothing to do: no stream open, no request waiting.
    private var isIdle: Bool { streams.isEmpty && queued.isEmpty }

    /// Tells the liveness check the connection has gone idle: a PING after its interval checks that the server is
    /// still there before a request relies on the connection.
    private func armPingIfIdle() {
        guard !isClosed, isIdle else { return }
        updateLiveness { $0.becameIdle(at: loop.now()) }
    }

    private func pingTimerFired() {
        pingTimer = nil
        guard !isClosed else { return }
        updateLiveness { [isIdle] in $0.timerFired(at: loop.now(), isIdle: isIdle) }
    }

    private func pingAnswered() {
        if liveness?.isAwaitingPing == true { _ = pingsAnswered.add(1) }
        updateLiveness { [isIdle] in $0.pingAnswered(at: loop.now(), isIdle: isIdle) }
    }

    /// Hands the liveness check an event and does what it says.
    private func updateLiveness(_ event: (inout HTTP2Liveness) -> HTTP2Liveness.Action) {
        guard var machine = liveness else { return }
        let action = event(&machine)
        liveness = machine
        switch action {
        case .none:
            break
        case .wait(let deadline):
            schedulePing(at: deadline)
        case .sendPing(let deadline):
            session.ping()
            flush()
            schedulePing(at: deadline)
        case .stopTimer:
            if let pingTimer { loop.cancel(pingTimer) }
            pingTimer = nil
        case .close:
            close()
            pool?.discard(.http2(self))
        }
    }

    private func schedulePing(at deadline: UInt64) {
        if let pingTimer { loop.cancel(pingTimer) }
        pingTimer = loop.schedule(at: deadline) { [weak self] in self?.pingTimerFired() }
    }

    // MARK: Timeouts

    /// Arms the connection's timer for `exchange`'s idle deadline, unless a sooner check is pending.
    private func armTimer(for exchange: HTTP2Exchange) {
        guard let deadline = exchange.idleDeadline else { return }
        arm(deadline)
    }

    private func arm(_ deadline: UInt64) {
        if let timerDeadline, timerDeadline <= deadline { return }
        if let timer { loop.cancel(timer) }
        timerDeadline = deadline
        timer = loop.schedule(at: deadline) { [weak self] in self?.checkTimeouts() }
    }

    /// Resets the streams idle past their request's timeout (not those whose consumer is slow), failing each.
    private func checkTimeouts() {
        timer = nil
        timerDeadline = nil
        let now = loop.now()
        var soonest: UInt64?
        var expired: [Int32] = []
        for (streamID, exchange) in streams where exchange.unconsumed == 0 {
            guard let deadline = exchange.idleDeadline else { continue }
            if deadline <= now {
                expired.append(streamID)
            } else {
                soonest = min(soonest ?? .max, deadline)
            }
        }
        for streamID in expired { abandon(streamID, failing: NetworkSocket.Failure.timedOut) }
        // A job waiting for a stream waits within its idle timeout, as it would in the pool's queue.
        var waiting: [RequestJob] = []
        for job in queued {
            guard let deadline = job.idleDeadline else {
                waiting.append(job)
                continue
            }
            if deadline <= now {
                release(isReusable: !isClosed)
                job.finish(.poolWaitTimedOut)
            } else {
                waiting.append(job)
                soonest = min(soonest ?? .max, deadline)
            }
        }
        queued = waiting
        if let soonest { arm(soonest) }
    }
}
#endif
