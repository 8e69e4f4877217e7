import RequestKitModel
import RequestKitSockets

#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2

/// One HTTP/2 connection, driven by readiness on its event loop: many requests at once, each on a stream of its own.
///
/// Its ``Connector`` opens the socket (and the TLS handshake, whose ALPN picked `h2`, or a prior-knowledge h2c
/// connection); the pool makes this connection of it and starts its first job (``start(with:)``). A shell between
/// two value-like parts: the ``HTTP2Session`` (framing, HPACK, stream states and flow control, over nghttp2) and the
/// ``HTTP2ConnectionStateMachine`` (every decision about requests, streams, limits, timeouts and liveness). This
/// class moves bytes between the socket and the session, hands what the session reports to the machine, and carries
/// out what the machine decides: it starts streams, delivers heads and bodies (decoding them), sends requests
/// elsewhere, fails them, arms timers.
///
/// Each readiness call reads at most ``EventLoop/readBudget`` bytes: a server that sends frames flow control does not
/// limit cannot keep the loop from its timers and other connections. Its loop owns it: every entry point runs on
/// the loop's thread. The one exception is a request for a connection with no stream open while its loop waits: the
/// connection is lent to the awaiting task (``LoopOwnedConnection``), which opens the stream and writes the
/// request itself (``runInline(_:)``), so that the loop is woken by the response alone. The loop, finding it lent,
/// leaves its steps for when it comes back; nobody waits.
///
/// ```swift
/// let connection = try HTTP2Connection(
///     id: id, key: key, loop: loop, pool: pool, stream: stream, limits: limits, facts: nil)
/// connection.start(with: job)
/// ```
final class HTTP2Connection: EventLoopHandler, LoopOwnedConnection, @unchecked Sendable {
    // Safe: every mutable field is touched only by the connection's owner: the loop (the entry points hop onto it),
    // or the task it is lent to (``ConnectionOwnership``, whose atomic handoffs order one owner's writes before the
    // next one's reads).
    typealias Machine = HTTP2ConnectionStateMachine
    /// A step of the loop's: what an entry point does, kept in order while the connection is lent.
    typealias Step = () -> Void

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
    private var machine: Machine

    /// The open streams' requests, by stream id.
    private var exchanges: [Int32: HTTP2Exchange] = [:]
    /// The jobs the connection took, by the number it gave each (queued ones, and those on a stream).
    private var jobs: [Machine.RequestID: RequestJob] = [:]
    private var nextRequest = 0
    /// Bytes the session made that the socket has not taken yet, from ``outgoingOffset``.
    private var outgoing: [UInt8] = []
    private var outgoingOffset = 0
    private var isClosed = false
    /// Whether a write failed or found the stream ended: nothing more is written, so that the close it leads to
    /// does not write (and fail, and close) again.
    private var isWriteLost = false
    /// Whether a ``flush()`` is queued on the loop: the streams started meanwhile go out in one write.
    private var isFlushQueued = false
    /// Streams started whose first bytes the socket has not taken yet, for their metrics' `requestSent`.
    private var unsent: [(id: Int32, exchange: HTTP2Exchange)] = []
    /// The streams whose request body still has bytes to send, with their frames' bytes sent as of the last write
    /// (-1 before the write that carried their request): what goes out later is upload progress.
    private var uploads: [Int32: Int] = [:]
    private var timer: LoopTimer?
    private var timerDeadline: UInt64?
    /// The liveness timer: a PING when it fires with the connection idle, or the end of the wait for its answer.
    private var pingTimer: LoopTimer?
    /// How many liveness PINGs the server answered (read from any thread).
    let pingsAnswered = AtomicWord()
    /// Who holds the connection: its loop, or the task that writes its request itself (``runInline(_:)``).
    let ownership = ConnectionOwnership<Step>()
    /// Whether ``runInline(_:)`` runs: the loop's registrations and timers are then not to be touched.
    private var isOffLoop = false
    /// How many requests ``runInline(_:)`` wrote from their own task (read from any thread).
    let inlineRequests = AtomicWord()

    /// A connection over `stream`, whose handshake is done; it writes the connection preface when it starts.
    ///
    /// - Throws: ``RequestError`` when nghttp2 cannot make the session.
    init(
        id: ConnectionPool.Machine.ConnectionID, key: ConnectionKey, loop: EventLoop, pool: ConnectionPool,
        stream: any ByteStream, limits: ConnectionLimits, facts: ConnectionFacts?
    ) throws(RequestError) {
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
        machine = Machine(capacity: session.maxConcurrentStreams, pingInterval: pool.http2PingInterval)
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    }

    deinit {
        stream?.close()
        buffer.deallocate()
    }

    /// How many streams the server allows at once, as the pool was last told.
    var capacity: Int { machine.announcedCapacity }

    // MARK: Entry points (on the loop)

    /// Starts watching the socket its connector opened, and `job` on the first stream.
    func start(with job: RequestJob) {
        perform { [self] in
            do {
                try loop.register(descriptor, interest: .readable, handler: self)
                interest = .readable
            } catch {
                close()
                pool?.release(.http2(self), isReusable: false)
                return finish(job, .failed(error, wasReused: false))
            }
            runJob(job)
            // The handshake may have read the server's first frames already.
            readAvailable()
        }
    }

    /// Cancels `job` if it is still this connection's: its stream is reset; the connection goes on.
    func cancel(_ job: RequestJob) {
        perform { [self] in cancelJob(job) }
    }

    private func cancelJob(_ job: RequestJob) {
        guard let request = jobs.first(where: { $0.value === job })?.key else { return }
        switch machine.cancelled(request) {
        case .none:
            return
        case .dequeued:
            jobs[request] = nil
            release(isReusable: !isClosed)
            finish(job, .cancelled)
        case .reset(let streamID):
            session.cancel(streamID)
            if let exchange = exchanges.removeValue(forKey: streamID) { record(exchange, on: streamID) }
            jobs[request] = nil
            release(isReusable: !isClosed)
            finish(job, .cancelled)
            startQueued()
            flush()
        }
    }

    /// Closes the connection once the pool let it go (it was idle, or its server went away and its last stream
    /// ended).
    func closeIdle() {
        perform { [self] in close() }
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        perform(readinessWhileLent(descriptor, readable: readable, writable: writable)) {
            handleReadiness(descriptor, readable: readable, writable: writable)
        }
    }

    /// The step kept for readiness that came while the connection was lent. Readiness would be reported again at
    /// once (the loop's watching is level-triggered): the loop stops watching the socket until the connection is
    /// back, then watches it again and reads.
    private func readinessWhileLent(_ descriptor: Int32, readable: Bool, writable: Bool) -> Step {
        try? loop.setInterest([], for: descriptor)
        return { [self] in
            guard descriptor == self.descriptor, !isClosed else { return }
            do {
                try loop.setInterest(interest, for: descriptor)
            } catch {
                return handle(session.receivedEnd(), lostWith: error)
            }
            handleReadiness(descriptor, readable: readable, writable: writable)
        }
    }

    private func handleReadiness(_ descriptor: Int32, readable: Bool, writable: Bool) {
        guard descriptor == self.descriptor, !isClosed else { return }
        if writable { flush() }
        if readable { readAvailable() }
    }

    // MARK: Owning

    func handle(_ step: @escaping Step) { step() }

    // MARK: Starting streams

    /// Starts `job` on a stream of its own, queues it until the server allows one more, or sends it elsewhere.
    func run(_ job: RequestJob) {
        perform { [self] in runJob(job) }
    }

    /// Starts `job` from the calling thread (the awaiting task's) when the connection can be lent, has no request,
    /// and can open a stream: the stream opens and the request is written at once, and the loop, which watches the
    /// socket already, reads the response when it arrives and finishes the job. Nothing on this thread waits for
    /// the response. Returns false, having changed nothing, when the loop must start the job instead (``run(_:)``);
    /// what the socket does not take whole, or a failure, is handed to the loop.
    func runInline(_ job: RequestJob) -> Bool {
        lent {
            let canStart =
                !isClosed && jobs.isEmpty && exchanges.isEmpty && outgoingOffset == outgoing.count
                && interest == .readable && room == .available && job.makeBodyReader == nil && !job.wasCancelled
            if canStart {
                isOffLoop = true
                runJob(job)
                isOffLoop = false
                inlineRequests.add(1)
            }
            return canStart
        }
    }

    private func runJob(_ job: RequestJob) {
        if job.wasCancelled {
            release(isReusable: !isClosed)
            return finish(job, .cancelled)
        }
        nextRequest += 1
        let request = Machine.RequestID(nextRequest)
        jobs[request] = job
        arrive(request, job: job)
    }

    private var room: Machine.Room {
        !session.isAvailable || isClosed ? .unavailable : session.canOpenStream ? .available : .full
    }

    private func arrive(_ request: Machine.RequestID, job: RequestJob) {
        switch machine.requestArrived(request, deadline: job.idleDeadline, room: room) {
        case .start: open(request, job: job)
        case .queue(let deadline): if let deadline { arm(deadline) }
        case .sendElsewhere: sendElsewhere(request)
        }
    }

    /// Opens a stream for `request`'s job.
    private func open(_ request: Machine.RequestID, job: RequestJob) {
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
            return end(request, with: .failed(error, wasReused: machine.startedCount > 0))
        }
        let streamID: Int32
        do {
            streamID = try session.request(head, body: body)
        } catch {
            switch error {
            case .noStreamAvailable, .connectionUnavailable:
                // The session knew better than the room said: ask again.
                return arrive(request, job: job)
            case .invalidRequest(let reason):
                let error = RequestError.transport(
                    POSIXError(.EINVAL), detail: "the request cannot go over HTTP/2: \(reason)")
                return end(request, with: .failed(error, wasReused: machine.startedCount > 0))
            case .extendedConnectNotAllowed:
                // Only a tunnel is refused so; a request never asks for one.
                let error = RequestError.transport(
                    POSIXError(.EINVAL), detail: "the server does not take extended CONNECT on this connection")
                return end(request, with: .failed(error, wasReused: machine.startedCount > 0))
            }
        }
        let now = loop.now()
        job.record.assign(isReused: machine.startedCount > 0, at: now)
        job.record.connection = facts
        job.record.noteSendStart(at: now)
        let delivery: Machine.Delivery
        switch job.mode {
        case .buffered(let limit): delivery = .buffered(bodyLimit: limit)
        case .streaming(let options):
            delivery = .streamed(bodyLimit: options.responseLimits.maxStreamedBodyBytes ?? .max)
        }
        let exchange = HTTP2Exchange(job: job, request: request)
        exchanges[streamID] = exchange
        // The request's idle clock goes on from its submission: waiting for a stream is no progress.
        let opened = machine.streamOpened(
            streamID, for: request, delivery: delivery, idleTimeout: Self.nanoseconds(job.idleTimeout),
            since: job.idleClockStart)
        runLiveness(opened.liveness)
        if let deadline = opened.armTimer { arm(deadline) }
        if job.record.isRecording { unsent.append((streamID, exchange)) }
        if session.isSendingBody(streamID) { uploads[streamID] = -1 }
        queueFlush()
    }

    /// Gives `request`'s job back to the pool to run on another connection: this one takes no new streams.
    private func sendElsewhere(_ request: Machine.RequestID) {
        guard let job = jobs.removeValue(forKey: request) else { return }
        _ = pool?.goingAway(self)
        release(isReusable: true)
        job.pool.submit(job)
    }

    /// Starts queued jobs while the server allows more streams.
    private func startQueued() {
        while let request = machine.nextWaiter(room: room) {
            guard let job = jobs[request] else { continue }
            open(request, job: job)
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
                // The loop's next turn goes on: bytes the TLS layer holds do not make the socket readable.
                loop.execute { [weak self] in self?.perform { self?.readAvailable() } }
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
                handle(session.receive(UnsafeRawBufferPointer(rebasing: buffer[0..<count])))
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
    /// Off the loop (``runInline(_:)``), the one request is written at once instead.
    private func queueFlush() {
        if isOffLoop { return flush() }
        guard !isFlushQueued else { return }
        isFlushQueued = true
        loop.execute { [self] in
            perform { [self] in
                isFlushQueued = false
                flush()
            }
        }
    }

    /// Tells the machine of the request bodies that went on since the write that carried their request (each a
    /// piece that had to wait for room), and forgets the streams whose body is all sent.
    private func noteUploadProgress() {
        guard !uploads.isEmpty else { return }
        let now = loop.now()
        for (id, seen) in uploads {
            let sent = session.sentWireBytes(of: id)
            if seen >= 0, sent > seen { machine.uploadProgressed(on: id, now: now) }
            uploads[id] = session.isSendingBody(id) ? sent : nil
        }
    }

    /// Writes what the session has to send; waits for room when the socket takes no more.
    private func flush() {
        guard let stream, !isClosed, !isWriteLost else { return }
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
                // Off the loop, whatever is not a whole write is the loop's: it writes again and meets the failure.
                if isOffLoop { return handToLoop { [self] in flush() } }
                isWriteLost = true
                return handle(session.receivedEnd(), lostWith: error)
            }
            switch result {
            case .transferred(let count):
                outgoingOffset += count
            case .endOfStream:
                if isOffLoop { return handToLoop { [self] in flush() } }
                isWriteLost = true
                return handle(session.receivedEnd())
            case .wouldBlock:
                if isOffLoop { return handToLoop { [self] in flush() } }
                noteUploadProgress()
                return setInterest([.readable, .writable])
            }
            if outgoingOffset == outgoing.count {
                outgoing = session.outgoing()
                outgoingOffset = 0
            }
        }
        outgoing.removeAll(keepingCapacity: true)
        outgoingOffset = 0
        noteUploadProgress()
        if !unsent.isEmpty {
            let now = loop.now()
            // Only while the stream is open: an ended job's record is its task's.
            for (id, exchange) in unsent where exchanges[id] === exchange { exchange.job.record.sendEnd = now }
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
            case .informational, .trailers:
                continue
            case .head(let streamID, let status, let headers):
                headArrived(on: streamID, status: status, headers: headers)
            case .data(let streamID, let bytes):
                dataArrived(bytes, on: streamID)
            case .end(let streamID):
                ended(streamID)
            case .retry(let streamID, let isRefused):
                notProcessed(streamID, isRefused: isRefused)
            case .failed(let streamID, let failure):
                guard let (request, hadHead) = machine.streamFailed(streamID) else { continue }
                fail(request, on: streamID, with: Self.requestError(failure, key: key, hadHead: hadHead))
            case .goingAway:
                wentAway()
            case .pingAnswered:
                if machine.isAwaitingPing { pingsAnswered.add(1) }
                runLiveness(machine.liveness(.pingAnswered, now: loop.now()))
            case .closed(let failure):
                closed(failure, error: error)
            }
        }
        if let error, !isClosed { closed(.protocolViolation(.internalError, "\(error)"), error: error) }
        if let capacity = machine.capacityChanged(to: session.maxConcurrentStreams, isAvailable: session.isAvailable) {
            pool?.capacityChanged(self, to: capacity)
        }
        startQueued()
        if machine.isFinished(isAvailable: session.isAvailable && !isClosed) {
            close()
            pool?.discard(.http2(self))
        }
        runLiveness(machine.liveness(.becameIdle, now: loop.now()))
    }

    private func headArrived(on streamID: Int32, status: Int, headers: HTTPHeaders) {
        let head = ResponseHead(minorVersion: 1, status: status, reason: "", fields: headers.fields)
        let now = loop.now()
        let announced = head.value(of: "content-length").flatMap(Int.init)
        switch machine.headArrived(on: streamID, announcedLength: announced, now: now) {
        case .ignore:
            return
        case .awaitBody:
            guard let exchange = exchanges[streamID] else { return }
            exchange.head = head
            exchange.job.record.received(0, at: now)
        case .deliver(let request):
            guard let exchange = exchanges[streamID], case .streaming(let options) = exchange.job.mode else { return }
            exchange.head = head
            exchange.job.record.received(0, at: now)
            do {
                try startDelivery(of: exchange, on: streamID, head: head, options: options)
            } catch {
                abandon(streamID, request, failing: error)
            }
        case .abandon(let request, let failure):
            exchanges[streamID]?.head = head
            reset(streamID, request, failing: error(for: failure, head: head))
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
        let (continuation, loop, request) = (options.continuation, loop, exchange.request)
        // A connection never reuses a stream id: the id alone names the exchange.
        continuation.onDemand = { [weak self] in
            loop.execute { self?.perform { self?.demanded(on: streamID) } }
        }
        continuation.onTermination = { [weak self] in
            loop.execute { self?.perform { self?.consumerLeft(streamID, request) } }
        }
        exchange.isDelivered = true
        finish(exchange.job, .head(head))
    }

    private func dataArrived(_ bytes: Data, on streamID: Int32) {
        let now = loop.now()
        switch machine.dataArrived(on: streamID, count: bytes.count, now: now) {
        case .ignore:
            return
        case .keep:
            guard let exchange = exchanges[streamID] else { return }
            exchange.job.record.received(0, at: now)
            exchange.body.append(bytes)
            session.consumed(bytes.count, on: streamID)
        case .handOver:
            guard let exchange = exchanges[streamID], case .streaming(let options) = exchange.job.mode else { return }
            do {
                let plain = try exchange.contentDecoder?.decode(bytes) ?? bytes
                exchange.bodyBytes += plain.count
                if options.continuation.isTerminated { throw CancellationError() }
                let isAccepted = plain.isEmpty || options.continuation.yield(plain)
                let consumed = machine.pieceHandedOver(on: streamID, count: bytes.count, isAccepted: isAccepted)
                session.consumed(consumed, on: streamID)
            } catch {
                abandon(streamID, exchange.request, failing: error)
            }
        case .abandon(let request, let failure):
            reset(streamID, request, failing: error(for: failure, head: exchanges[streamID]?.head))
        }
    }

    /// The consumer of a streamed body read some of it: the bytes it was given open the stream's window again.
    private func demanded(on streamID: Int32) {
        let (consume, deadline) = machine.consumerDemanded(on: streamID, now: loop.now())
        guard consume > 0 else { return }
        session.consumed(consume, on: streamID)
        if let deadline { arm(deadline) }
        flush()
    }

    /// The consumer of a streamed body left it: the stream is reset.
    private func consumerLeft(_ streamID: Int32, _ request: Machine.RequestID) {
        abandon(streamID, request, failing: CancellationError())
    }

    /// Tells the machine this connection gives up `streamID` (its request cannot go on), then resets it.
    private func abandon(_ streamID: Int32, _ request: Machine.RequestID, failing error: any Error) {
        guard machine.abandoned(streamID) == request else { return }
        reset(streamID, request, failing: error)
    }

    private func ended(_ streamID: Int32) {
        let now = loop.now()
        switch machine.streamEnded(streamID, now: now) {
        case .ignore:
            return
        case .fail(let request, let failure):
            fail(request, on: streamID, with: error(for: failure, head: nil))
        case .finish(let request):
            guard let exchange = exchanges.removeValue(forKey: streamID), let head = exchange.head else { return }
            jobs[request] = nil
            exchange.job.record.noteComplete(at: now)
            record(exchange, on: streamID)
            switch exchange.job.mode {
            case .buffered:
                release(isReusable: session.isAvailable)
                finish(exchange.job, .response((head: head, body: exchange.body, isReusable: true)))
            case .streaming(let options):
                do {
                    try exchange.contentDecoder?.finish()
                } catch {
                    release(isReusable: session.isAvailable)
                    return deliverFailure(of: exchange, error)
                }
                release(isReusable: session.isAvailable)
                options.continuation.finish(attempt: attempt(of: exchange, url: options.url, end: now))
            }
        }
    }

    /// The server did not process the stream: its request goes to the pool again, or fails, as the machine says.
    private func notProcessed(_ streamID: Int32, isRefused: Bool) {
        guard let exchange = exchanges[streamID] else { return }
        let job = exchange.job
        switch machine.streamNotProcessed(
            streamID, isRefused: isRefused, refusals: job.refusals, unprocessed: job.unprocessedResends)
        {
        case .ignore:
            return
        case .fail(let request, let failure):
            fail(request, on: streamID, with: error(for: failure, head: nil))
        case .resend(let request, let refusals, let unprocessed):
            exchanges[streamID] = nil
            jobs[request] = nil
            _ = session.takeWireBytes(of: streamID)
            release(isReusable: !isClosed && session.isAvailable)
            job.refusals = refusals
            job.unprocessedResends = unprocessed
            job.record.restart()
            job.pool.submit(job)
        }
    }

    /// The server sent GOAWAY: no new streams here. Queued jobs go elsewhere; the open ones below the server's last
    /// stream go on, and the connection closes after the last of them.
    private func wentAway() {
        guard let pool else { return }
        let action = machine.serverWentAway()
        let isIdle = pool.goingAway(self)
        for request in action.elsewhere {
            guard let job = jobs.removeValue(forKey: request) else { continue }
            release(isReusable: true)
            job.pool.submit(job)
        }
        if isIdle, action.closeNow { close() }
    }

    /// The connection is over: every stream still open fails, and the queued jobs go elsewhere.
    private func closed(_ failure: HTTP2ConnectionFailure?, error: (any Error)?) {
        let action = machine.connectionClosed()
        flush()
        close()
        let reason = failure ?? .closed
        for failing in action.failing {
            fail(
                failing.request, on: failing.stream,
                with: Self.requestError(.connectionLost(reason), key: key, hadHead: failing.hadHead), isReusable: false)
        }
        for request in action.elsewhere {
            guard let job = jobs.removeValue(forKey: request) else { continue }
            release(isReusable: false)
            job.pool.submit(job)
        }
        if action.failing.isEmpty, action.elsewhere.isEmpty { pool?.discard(.http2(self)) }
    }

    // MARK: Ending requests

    /// Resets `streamID` (its response is no longer wanted, or broke a limit) and fails its request with `error`.
    private func reset(_ streamID: Int32, _ request: Machine.RequestID, failing error: any Error) {
        session.cancel(streamID)
        fail(request, on: streamID, with: error)
        // Its stream's room goes to a job waiting for one.
        startQueued()
        flush()
    }

    /// Fails `request` (whose stream, if any, the machine has let go): its task, or the consumer of its body.
    private func fail(
        _ request: Machine.RequestID, on streamID: Int32?, with error: any Error, isReusable: Bool? = nil
    ) {
        let exchange = streamID.flatMap { exchanges.removeValue(forKey: $0) }
        guard let job = jobs.removeValue(forKey: request) else { return }
        if let exchange, let streamID { record(exchange, on: streamID) }
        release(isReusable: isReusable ?? (!isClosed && session.isAvailable))
        if let exchange, exchange.isDelivered { return deliverFailure(of: exchange, error) }
        if error is CancellationError || job.wasCancelled { return finish(job, .cancelled) }
        finish(job, .failed(error, wasReused: false))
    }

    /// Ends `request` at once, before it had a stream, with `outcome`.
    private func end(_ request: Machine.RequestID, with outcome: RequestJob.Outcome) {
        guard let job = jobs.removeValue(forKey: request) else { return }
        release(isReusable: !isClosed)
        finish(job, outcome)
    }

    /// Fails the consumer of a streamed body with `error`.
    private func deliverFailure(of exchange: HTTP2Exchange, _ error: any Error) {
        guard case .streaming(let options) = exchange.job.mode else { return }
        let failure: RequestError
        if error is CancellationError {
            failure = RequestError.cancelled(underlyingError: error)
        } else if let head = exchange.head,
            let tooLarge = ResponseTooLarge(
                error, head: head, bodyLimit: exchange.bodyLimit, maxRatio: exchange.maxRatio)
        {
            failure = tooLarge.requestError(url: options.url)
        } else {
            failure = NativeTransport.requestError(
                for: error, idleTimeout: exchange.job.idleTimeout, key: key, url: options.url)
        }
        options.continuation.finish(
            throwing: failure, attempt: attempt(of: exchange, url: options.url, end: loop.now()))
    }

    /// Moves what `streamID` put on the wire into its job's record.
    private func record(_ exchange: HTTP2Exchange, on streamID: Int32) {
        let wire = session.takeWireBytes(of: streamID)
        exchange.job.record.bytesSent = wire.sent
        exchange.job.record.bytesReceived = wire.received
    }

    /// The error for a machine's failure of a request whose head, if any, is `head`.
    private func error(for failure: Machine.Failure, head: ResponseHead?) -> any Error {
        let head = head ?? ResponseHead(minorVersion: 1, status: 0, reason: "", fields: [])
        switch failure {
        case .tooLarge(let limit):
            return ResponseTooLarge(head: head, isRatio: false, limit: limit)
        case .truncatedHead:
            return HTTP1ParseError.truncatedHead
        case .refused(let times):
            return RequestError.transport(
                HTTP2StreamFailure.reset(.refusedStream),
                detail: "the server refused the request's stream \(times) times; it was not sent again")
        case .unprocessed(let times):
            return RequestError.transport(
                HTTP2StreamFailure.connectionLost(.closed),
                detail: "servers going away did not process the request \(times) times; it was not sent again")
        case .timedOut:
            return NetworkSocket.Failure.timedOut
        case .streamWaitTimedOut(let streams):
            return RequestError.timedOut(Self.streamWaitMessage(streams, key: key))
        case .unexpected(let what):
            return RequestError.transport(POSIXError(.EPROTO), detail: "the HTTP/2 server broke the protocol: \(what)")
        }
    }

    /// Why a request that waited for a stream gave up.
    static func streamWaitMessage(_ streams: Int, key: ConnectionKey) -> String {
        streams == 0
            ? "the HTTP/2 server at \(key.host) port \(key.port) allows no streams at once "
                + "(SETTINGS_MAX_CONCURRENT_STREAMS 0), so the request could not start within its timeout"
            : "all \(streams) streams the HTTP/2 server at \(key.host) port \(key.port) allows at once stayed busy "
                + "for the request's timeout"
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
        runLiveness(machine.liveness(.becameIdle, now: loop.now()))
    }

    /// Closes the socket and stops the timers; nothing more is read or written.
    private func close() {
        guard !isClosed else { return }
        isClosed = true
        if descriptor >= 0 { loop.deregister(descriptor) }
        stream?.close()
        stream = nil
        descriptor = -1
        for pending in [timer, pingTimer].compactMap({ $0 }) { loop.cancel(pending) }
        timer = nil
        timerDeadline = nil
        pingTimer = nil
    }

    // MARK: Timers

    /// Carries out what the liveness check says.
    private func runLiveness(_ action: HTTP2Liveness.Action) {
        if isOffLoop {
            // A timer left armed while busy fires to nothing (``HTTP2Liveness/timerFired(at:isIdle:)``), and the next
            // wait replaces it: stopping it needs no loop. What else the check calls for is the loop's to do.
            if action == .none || action == .stopTimer { return }
            return handToLoop { [self] in runLiveness(action) }
        }
        switch action {
        case .none:
            return
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
        pingTimer = loop.schedule(at: deadline) { [weak self] in
            self?.perform { [weak self] in
                guard let self else { return }
                pingTimer = nil
                guard !isClosed else { return }
                runLiveness(machine.liveness(.timerFired, now: loop.now()))
            }
        }
    }

    /// Arms the connection's timer for `deadline`, unless a sooner check is pending.
    private func arm(_ deadline: UInt64) {
        if let timerDeadline, timerDeadline <= deadline { return }
        // Off the loop, only when no sooner check is pending: the loop arms it (once per timeout at most).
        if isOffLoop { return handToLoop { [self] in arm(deadline) } }
        if let timer { loop.cancel(timer) }
        timerDeadline = deadline
        timer = loop.schedule(at: deadline) { [weak self] in self?.perform { self?.timerFired() } }
    }

    /// Resets the streams idle past their request's timeout, and fails the queued jobs past their deadline.
    private func timerFired() {
        timer = nil
        timerDeadline = nil
        let action = machine.timerFired(now: loop.now(), maxConcurrentStreams: session.maxConcurrentStreams)
        for (streamID, request) in action.expiredStreams {
            reset(streamID, request, failing: NetworkSocket.Failure.timedOut)
        }
        for request in action.expiredWaiters {
            let failure = Machine.Failure.streamWaitTimedOut(maxConcurrentStreams: session.maxConcurrentStreams)
            end(request, with: .failed(error(for: failure, head: nil), wasReused: false))
        }
        if let deadline = action.armTimer { arm(deadline) }
    }

    /// Nanoseconds of `seconds` for an idle timeout; nil for none.
    private static func nanoseconds(_ seconds: Double) -> UInt64? {
        guard seconds > 0, seconds.isFinite, seconds < 1e8 else { return nil }
        return UInt64(seconds * 1e9)
    }
}
#endif
