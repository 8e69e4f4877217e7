import Foundation

/// One kept-alive HTTP/1.1 connection, driven by readiness on its event loop: it connects (trying each address in
/// turn), sends a job's request, reads the response, and either hands back the whole response or streams the body
/// at the pace its consumer reads it. Bytes move only through its ``ByteStream``.
///
/// Where it is and every protocol decision (when to send again, whether to keep the connection, how an early answer,
/// an interim one or the end of the stream is taken) belong to its ``HTTP1ConnectionStateMachine``; this class does
/// the reading, writing, parsing and timing the machine's events and actions call for.
///
/// Its loop owns it: every step (readiness, timers, and what other threads hand the loop: ``run(_:)``,
/// ``cancel(_:)``, ``closeIdle()``) runs on the loop's thread. The one exception is the fast path the pool chooses
/// for a request on an idle connection while the loop waits: the connection is lent to the awaiting task
/// (``HTTP1ConnectionOwnership``), which writes the request itself and may read a prompt response
/// (``runInline(_:polls:)``), so that a request on a kept-alive connection needs no wake-up of the loop. The loop,
/// finding it lent, leaves its steps for when it comes back; nobody waits. A job that ends is resumed once the
/// connection is out of its owner's hands: its task, woken at once, often writes its next request here.
final class HTTP1Connection: EventLoopHandler, @unchecked Sendable {
    // Safe: every mutable field is only touched by the connection's owner, the loop or the task it is lent to
    // (``HTTP1ConnectionOwnership``, whose atomic handoffs order one owner's writes before the next one's reads);
    // `deferredSteps` only on the loop's thread. No access to a field is held across a call that could reach it
    // again (the byte stream, the job and the pool never call back into the connection), so the fields changed on
    // every request skip the runtime's exclusivity checks (`@exclusivity(unchecked)`): they cost as much as the rest
    // of those fields' handling.

    /// Makes the byte stream for a connected socket descriptor and the key it connects for (plain TCP, or TLS
    /// when the key has a TLS configuration).
    typealias StreamFactory = @Sendable (_ descriptor: Int32, _ key: ConnectionKey) throws -> any ByteStream

    /// The outcome of a buffered exchange: the final response head, its raw body, and whether the connection may
    /// carry another request.
    typealias Exchanged = (head: ResponseHead, body: Data, isReusable: Bool)

    /// The connection's identifier in its pool's ``ConnectionPoolStateMachine``.
    let id: ConnectionPool.Machine.ConnectionID
    /// The host and port this connection goes to.
    let key: ConnectionKey
    /// The loop that drives it.
    let loop: EventLoop
    private let ownership = HTTP1ConnectionOwnership()
    /// The loop's steps that came while the connection was lent, in order (only the loop touches them).
    @exclusivity(unchecked) private var deferredSteps: [Step] = []
    private weak var pool: ConnectionPool?
    private let connectTimeout: Double
    /// How long, in nanoseconds, ``runInline(_:polls:)`` looks for a response (0: never): about what waiting
    /// costs instead (the loop woken by the response, then the awaiting task by the loop).
    private let pollWindow: UInt64
    private let makeStream: StreamFactory
    private let buffer: UnsafeMutableRawBufferPointer
    @exclusivity(unchecked) private var bufferStart = 0
    @exclusivity(unchecked) private var bufferEnd = 0

    /// The connection's phase and every protocol decision: the one source of truth for where it is.
    private var machine = HTTP1ConnectionStateMachine()
    private var phase: HTTP1ConnectionStateMachine.State { machine.state }
    private var stream: (any ByteStream)?
    /// The descriptor registered with the loop (connecting or connected), or -1.
    private var descriptor: Int32 = -1
    private var interest: LoopInterest = []

    @exclusivity(unchecked) private var job: RequestJob?
    private var addresses: [NetworkSocket.Address] = []
    private var addressIndex = 0
    private var lastConnectFailure = NetworkSocket.Failure.system(POSIXError(.ECONNREFUSED))
    private var connectTimer: LoopTimer?
    /// Its addresses and TLS parameters, once known: every job's metrics show them.
    private var facts: ConnectionFacts?

    /// The request head (with a small body after it) still to write, from `headOffset`; then `outgoing`.
    @exclusivity(unchecked) private var outgoingHead: [UInt8] = []
    @exclusivity(unchecked) private var headOffset = 0
    @exclusivity(unchecked) private var outgoing: [Data] = []
    @exclusivity(unchecked) private var outgoingOffset = 0
    private var bodyReader: RequestBodyReader?
    private var isReaderDone = true
    private var readerBytes = 0
    @exclusivity(unchecked) private var progress = HTTP1ResponseProgress()
    private var pump: HTTP1BodyPump?
    private var pumpGeneration = 0

    private var timeoutNanoseconds: UInt64?
    @exclusivity(unchecked) private var lastActivity: UInt64 = 0
    private var timeoutTimer: LoopTimer?
    /// The deadline of ``timeoutTimer`` while it is pending: a later deadline needs no new timer.
    private var timerDeadline: UInt64?

    /// When the current request was written whole, in ``EventLoop/now()`` nanoseconds.
    @exclusivity(unchecked) private var sentAt: UInt64 = 0
    /// Whether ``receiveOffLoop(_:)`` runs: the loop's registrations and timers are then not to be touched.
    @exclusivity(unchecked) private var isOffLoop = false
    /// How many responses in a row the server sent later than ``pollWindow`` after their request (up to 2).
    @exclusivity(unchecked) private var lateAnswers: UInt8 = 0
    /// Requests sent inline without polling since polling stopped; every ``promptRecheck``-th polls again, so that
    /// a server that was slow for a while (or whose answers the loop read late) is tried again.
    @exclusivity(unchecked) private var unpolledCount: UInt8 = 0
    /// How many times ``runInline(_:polls:)`` looked for a response, and how many responses it read.
    private let polls = AtomicWord()
    private let answered = AtomicWord()

    /// Jobs ended during a step, resumed once the connection is out of its owner's hands (``perform(_:_:)``,
    /// ``runInline(_:polls:)``): a task resumed meanwhile often starts its next request on this connection at once,
    /// and could not borrow it.
    @exclusivity(unchecked) private var finished = FinishedJobs()

    init(
        id: ConnectionPool.Machine.ConnectionID, key: ConnectionKey, loop: EventLoop,
        pool: ConnectionPool, bufferSize: Int,
        connectTimeout: Double, pollWindow: UInt64, makeStream: @escaping StreamFactory
    ) {
        self.pollWindow = pollWindow
        self.id = id
        self.key = key
        self.loop = loop
        self.pool = pool
        self.connectTimeout = connectTimeout
        self.makeStream = makeStream
        self.buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bufferSize, 4096), alignment: 16)
    }

    deinit {
        stream?.close()
        if stream == nil, descriptor >= 0 { NetworkSocket.close(descriptor) }
        buffer.deallocate()
    }

    // MARK: Owning

    /// A step of the loop's: each entry point from readiness, a timer or another thread, run on the loop's thread.
    private enum Step {
        case start(RequestJob)
        case cancel(RequestJob)
        case closeIdle
        case readiness(readable: Bool, writable: Bool, descriptor: Int32)
        /// Watches `descriptor` again for the readiness the connection waits for, when it is still the connection's:
        /// the loop stopped watching it when its readiness came while the connection was lent.
        case watchAgain(descriptor: Int32)
        case drive
        case fail(any Error)
        case lookupEnded(Result<[NetworkSocket.Address], NetworkSocket.Failure>)
        case lookupTimedOut
        case connectAttemptTimedOut
        case handshakeTimedOut
        case scheduleTimeoutCheck(deadline: UInt64)
        case checkTimeout
        case resumePump(generation: Int)
        case terminatePump(generation: Int)
        /// Nothing of its own: the connection came back with steps the loop left, which run first.
        case takeUpDeferred
    }

    /// Runs `body` on the loop (the caller's thread): at once, after any steps left while the connection was lent,
    /// unless it is lent now, when `step` (what `body` does) waits for the connection to come back.
    @inline(__always)
    private func perform(_ step: @autoclosure () -> Step, _ body: () -> Void) {
        guard ownership.enterLoop() else {
            deferStep(step())
            return
        }
        if !deferredSteps.isEmpty { takeUpDeferredSteps() }
        body()
        let ended = finished.take()
        ownership.leaveLoop()
        ended.resume()
    }

    /// Runs `step` on the loop (the caller's thread), as ``perform(_:_:)`` does.
    private func perform(_ step: Step) {
        perform(step) { handle(step) }
    }

    private func deferStep(_ step: Step) {
        if case .readiness(_, _, let watched) = step {
            // Readiness would be reported again at once (the loop's watching is level-triggered): the loop stops
            // watching the socket until the connection is back.
            try? loop.setInterest([], for: watched)
            deferredSteps.append(.watchAgain(descriptor: watched))
        }
        deferredSteps.append(step)
    }

    private func takeUpDeferredSteps() {
        let steps = deferredSteps
        deferredSteps = []
        for step in steps { handle(step) }
    }

    private func handle(_ step: Step) {
        switch step {
        case .start(let job): start(job)
        case .cancel(let job): cancelJob(job)
        case .closeIdle: close()
        case .readiness(let readable, let writable, _): handleReadiness(readable: readable, writable: writable)
        case .watchAgain(let watched):
            guard watched == descriptor else { return }
            do {
                try loop.setInterest(interest, for: descriptor)
            } catch {
                watchingRefused(error)
            }
        case .drive: drive()
        case .fail(let error): fail(error)
        case .lookupEnded(let result): lookupEnded(result)
        case .lookupTimedOut: connectFailed(.timedOut)
        case .connectAttemptTimedOut: connectAttemptTimedOut()
        case .handshakeTimedOut: handshakeTimedOut()
        case .scheduleTimeoutCheck(let deadline): scheduleTimeoutCheck(at: deadline)
        case .checkTimeout: checkTimeout()
        case .resumePump(let generation): resumePump(generation)
        case .terminatePump(let generation): terminatePump(generation)
        case .takeUpDeferred: return
        }
    }

    /// Hands `step` to the loop, from any thread.
    private func handToLoop(_ step: Step) {
        loop.execute { [self] in perform(step) }
    }

    /// Jobs that ended, to resume together later: the first inline, so that the usual one costs no allocation.
    private struct FinishedJobs {
        // A struct rather than a tuple: an optional tuple is handled through run-time metadata.
        private struct Finished {
            let job: RequestJob
            let outcome: RequestJob.Outcome
        }

        private var first: Finished?
        private var more: [Finished] = []

        mutating func append(_ job: RequestJob, _ outcome: RequestJob.Outcome) {
            if first == nil {
                first = Finished(job: job, outcome: outcome)
            } else {
                more.append(Finished(job: job, outcome: outcome))
            }
        }

        /// The jobs so far, leaving none.
        mutating func take() -> FinishedJobs {
            guard first != nil else { return FinishedJobs() }
            var taken = FinishedJobs()
            swap(&taken, &self)
            return taken
        }

        func resume() {
            guard let first else { return }
            first.job.finish(first.outcome)
            for finished in more { finished.job.finish(finished.outcome) }
        }
    }

    /// Ends `job` with `outcome` once the connection is out of its owner's hands.
    private func resume(_ job: RequestJob, _ outcome: RequestJob.Outcome) {
        if job.record.isRecording, job.record.assigned != 0 { job.record.connection = facts }
        finished.append(job, outcome)
    }

    // MARK: Starting and ending

    /// Starts `job` on this connection (on the loop): reusing the open socket when it is still usable, connecting
    /// first otherwise.
    func run(_ job: RequestJob) {
        perform(.start(job)) { start(job) }
    }

    /// How often a connection whose server answered late twice in a row polls all the same.
    static let promptRecheck: UInt8 = 16

    /// Sends `job`'s request from the calling thread (the awaiting task's) when the loop can lend this connection
    /// and it is idle, open and still usable: the request is written at once, and the loop, which watches the idle
    /// socket already, reads the response when it arrives. Returns false, having changed nothing, when the loop
    /// must start the job instead (``run(_:)``); a request that cannot be written whole, or fails, is handed to the
    /// loop to finish.
    ///
    /// When `polls`, the task then looks for the response itself for up to ``pollWindow``, reading it when it comes;
    /// the loop reads it otherwise. Unless the server's last two answers on this connection both came later than the
    /// window (then only on every ``promptRecheck``-th request): a slow server costs little polling, and one late
    /// answer from a fast server stops nothing. (``NativeTransport/Configuration/responsePollWindow``.) The pool asks
    /// for it only when this is the one request it has in flight: a sequential caller has nothing else to run
    /// meanwhile, and the response then arrives without waking two threads, which on a loopback or data-centre
    /// round trip halves the time per request. The reads do not block; the task keeps the connection no longer
    /// than the window.
    func runInline(_ job: RequestJob, polls: Bool) -> Bool {
        guard ownership.lend() else { return false }
        isOffLoop = true
        let isSent = sendInline(job)
        if isSent, polls, isReceiving(job), startsPolling() {
            let deadline = sentAt &+ pollWindow
            while receiveOffLoop(job), EventLoop.now() < deadline {}
            if self.job !== job { answered.add(1) }
        }
        isOffLoop = false
        let ended = finished.take()
        if ownership.giveBack() { handToLoop(.takeUpDeferred) }
        ended.resume()
        return isSent
    }

    /// The sending of ``runInline(_:polls:)``, the connection lent.
    private func sendInline(_ job: RequestJob) -> Bool {
        guard phase == .idle, self.job == nil, stream != nil, interest == .readable, !job.wasCancelled,
            isUsableAfterIdle(knownReadable: false)
        else { return false }
        self.job = job
        bufferStart = 0
        bufferEnd = 0
        progress = HTTP1ResponseProgress()
        _ = machine.requestStarted(isIdempotent: job.isIdempotent, canRetry: !job.hasRetried, isOpen: true)
        job.record.assign(isReused: true)
        do {
            try prepareSending(idleClockStart: job.idleClockStart)
            _ = try send()
            // Written whole: the socket is watched for reading already. Otherwise the loop waits for room.
            if phase != .receivingHead { handToLoop(.drive) }
        } catch {
            handToLoop(.fail(error))
        }
        return true
    }

    /// Whether `job` is this connection's and waits for its response.
    private func isReceiving(_ job: RequestJob) -> Bool {
        self.job === job && (phase == .receivingHead || phase == .receivingBody)
    }

    /// Whether ``runInline(_:polls:)`` looks this time, counting it.
    private func startsPolling() -> Bool {
        if lateAnswers >= 2 {
            unpolledCount += 1
            guard unpolledCount >= Self.promptRecheck else { return false }
        }
        unpolledCount = 0
        polls.add(1)
        return true
    }

    /// The receiving steps of ``drive()``, from the awaiting task's thread: reads what has arrived, and ends the job
    /// when the response is whole. Returns whether to look again: false once the job has ended or the loop has
    /// taken over. What is the loop's is handed to it: readiness other than reading to wait for, a streamed body,
    /// and the socket's registration when it closes (``close()``).
    private func receiveOffLoop(_ job: RequestJob) -> Bool {
        do {
            while self.job === job {
                let waitingFor: ByteStreamResult.Interest?
                switch phase {
                case .receivingHead: waitingFor = try receiveHead()
                case .receivingBody: waitingFor = try receiveBody()
                default:
                    handToLoop(.drive)
                    return false
                }
                guard let waitingFor else { continue }
                if waitingFor == .readable {
                    if stream?.hasBufferedBytes == true { continue }
                    return true
                }
                handToLoop(.drive)
                return false
            }
            // A streamed body goes on from bytes that may all be in the buffer already: the loop moves them.
            if phase == .streaming { handToLoop(.drive) }
            return false
        } catch {
            // Failed here and now, as the loop would: a step that failed may have moved past bytes (a head whose
            // framing is refused), so the loop must not take the same bytes up again.
            fail(error)
            return false
        }
    }

    /// How many times ``runInline(_:polls:)`` looked for a response, and how many responses it read.
    var pollCounts: (polls: Int, answered: Int) {
        (Int(truncatingIfNeeded: polls.load()), Int(truncatingIfNeeded: answered.load()))
    }

    private func start(_ job: RequestJob) {
        if job.wasCancelled {
            resume(job, .cancelled)
            release(isReusable: stream != nil && phase == .idle, pool: job.pool)
            return
        }
        self.job = job
        bufferStart = 0
        bufferEnd = 0
        progress = HTTP1ResponseProgress()
        if stream != nil, !isUsableAfterIdle(knownReadable: false) {
            // The server closed it (or sent something unasked) while it was idle: it cannot carry this request.
            close()
        }
        let action = machine.requestStarted(
            isIdempotent: job.isIdempotent, canRetry: !job.hasRetried, isOpen: stream != nil)
        job.record.assign(isReused: machine.isReused)
        if action == .send {
            do {
                try prepareSending(idleClockStart: job.idleClockStart)
            } catch {
                fail(error)
                return
            }
            drive()
        } else {
            // Resolving, connecting and the handshake are bounded by the request's idle timeout too, counted from
            // when the request was submitted (waiting for a connection is no progress), as well as by the connect
            // timeout.
            armTimeout(job.idleTimeout, since: job.idleClockStart)
            startConnecting()
        }
    }

    /// Cancels `job` when it is still this connection's: the connection closes.
    func cancel(_ job: RequestJob) {
        perform(.cancel(job)) { cancelJob(job) }
    }

    /// Closes an idle connection the pool let go of (on the loop).
    func closeIdle() {
        perform(.closeIdle) { close() }
    }

    private func cancelJob(_ job: RequestJob) {
        guard self.job === job else { return }
        self.job = nil
        _ = machine.cancelled()
        close()
        release(isReusable: false, pool: job.pool)
        resume(job, .cancelled)
    }

    /// Closes the socket and stops every timer; the connection connects again for its next job.
    func close() {
        let (closing, closingStream, loop) = (descriptor, stream, loop)
        let timers = [connectTimer, timeoutTimer].compactMap { $0 }
        let letGo = {
            if closing >= 0 {
                loop.deregister(closing)
                if let closingStream { closingStream.close() } else { NetworkSocket.close(closing) }
            }
            for timer in timers { loop.cancel(timer) }
        }
        if !isOffLoop {
            letGo()
        } else if closing >= 0 || !timers.isEmpty {
            // From the awaiting task (``receiveOffLoop(_:)``): the loop stops watching the socket before it is closed
            // (so that its number is not reused while watched), and cancels the timers, which are its own.
            loop.execute(letGo)
        }
        stream = nil
        descriptor = -1
        interest = []
        connectTimer = nil
        timeoutNanoseconds = nil
        timeoutTimer = nil
        timerDeadline = nil
        machine.closed()
    }

    private func release(isReusable: Bool, pool: ConnectionPool) {
        bodyReader = nil
        if !isReusable { close() }
        machine.jobEnded(isKept: isReusable)
        timeoutNanoseconds = nil
        if isReusable { setInterest(.readable) }
        pool.release(.http1(self), isReusable: isReusable)
    }

    /// Ends the job with `outcome`, returning the connection to the pool.
    private func finishJob(_ outcome: RequestJob.Outcome, isReusable: Bool) {
        guard let job else { return }
        self.job = nil
        release(isReusable: isReusable, pool: job.pool)
        resume(job, outcome)
    }

    /// Ends the job with a failure: sent again on a fresh connection when the reused connection closed before any
    /// response byte and the method allows it once.
    private func fail(_ error: any Error) {
        guard let job else { return }
        self.job = nil
        let closedEarly: Bool
        if case ExchangeFailure.closedBeforeResponse = error { closedEarly = true } else { closedEarly = false }
        let wasReused = machine.isReused
        let decision = machine.failed(isConnectionReset: closedEarly)
        close()
        if decision == .retry {
            job.hasRetried = true
            job.idleClockStart = EventLoop.now()
            job.record.restart()
            release(isReusable: false, pool: job.pool)
            job.pool.submit(job)
            return
        }
        release(isReusable: false, pool: job.pool)
        if job.wasCancelled {
            resume(job, .cancelled)
        } else {
            resume(job, .failed(error, wasReused: wasReused))
        }
    }

    // MARK: Connecting

    private func startConnecting() {
        // Through a proxy, the socket connects to the proxy.
        let host = key.connectHost
        let port = key.connectPort
        do {
            if let numeric = try NetworkSocket.addressesWithoutLookup(host: host, port: port) {
                connect(to: numeric)
                return
            }
        } catch {
            connectFailed(error)
            return
        }
        // A name lookup blocks: it runs on a short-lived thread of its own, never on the loop or the task pool.
        job?.record.lookupStart = EventLoop.now()
        connectTimer = loop.schedule(after: connectTimeout) { [weak self] in
            self?.perform(.lookupTimedOut)
        }
        do {
            try DetachedThread.start(name: "RequestKit.DNS") { [self] in
                let result = Result { () throws(NetworkSocket.Failure) in
                    try NetworkSocket.resolve(host: host, port: port)
                }
                self.handToLoop(.lookupEnded(result))
            }
        } catch {
            lookupEnded(.failure(.system(error)))
        }
    }

    private func lookupEnded(_ result: Result<[NetworkSocket.Address], NetworkSocket.Failure>) {
        guard phase == .resolving, let job else { return }
        job.record.lookupEnd = EventLoop.now()
        if let connectTimer { loop.cancel(connectTimer) }
        connectTimer = nil
        switch result {
        case .success(let addresses): connect(to: addresses)
        case .failure(let failure): connectFailed(failure)
        }
    }

    private func connect(to addresses: [NetworkSocket.Address]) {
        machine.resolved()
        self.addresses = addresses
        addressIndex = 0
        job?.record.connectStart = EventLoop.now()
        lastConnectFailure = .system(POSIXError(.ECONNREFUSED))
        connectToNextAddress()
    }

    private func connectToNextAddress() {
        while addressIndex < addresses.count {
            let address = addresses[addressIndex]
            addressIndex += 1
            do {
                let (descriptor, isConnected) = try NetworkSocket.startConnecting(to: address)
                self.descriptor = descriptor
                do {
                    try loop.register(descriptor, interest: isConnected ? [] : .writable, handler: self)
                } catch {
                    close()
                    lastConnectFailure = .system(error)
                    continue
                }
                interest = isConnected ? [] : .writable
                if isConnected {
                    connected()
                } else {
                    connectTimer = loop.schedule(after: connectTimeout) { [weak self] in
                        self?.perform(.connectAttemptTimedOut)
                    }
                }
                return
            } catch {
                lastConnectFailure = error
            }
        }
        connectFailed(lastConnectFailure)
    }

    private func connectAttemptTimedOut() {
        guard phase == .connecting else { return }
        connectTimer = nil
        close()
        lastConnectFailure = .timedOut
        connectToNextAddress()
    }

    private func connectAttemptEnded() {
        if let connectError = NetworkSocket.connectionError(descriptor) {
            close()
            lastConnectFailure = .system(connectError)
            connectToNextAddress()
            return
        }
        connected()
    }

    private func connected() {
        if let connectTimer { loop.cancel(connectTimer) }
        connectTimer = nil
        let now = EventLoop.now()
        job?.record.connectEnd = now
        facts = ConnectionFacts(
            localAddress: NetworkSocket.localAddress(of: descriptor),
            remoteAddress: addresses.indices.contains(addressIndex - 1)
                ? NetworkSocket.describe(addresses[addressIndex - 1].bytes) : nil)
        do {
            stream = try makeStream(descriptor, key)
        } catch {
            close()
            fail(error)
            return
        }
        machine.connected()
        if phase == .handshaking, key.isSecure { job?.record.handshakeStart = now }
        drive()
    }

    private func connectFailed(_ failure: NetworkSocket.Failure) {
        guard let job else { return }
        self.job = nil
        _ = machine.failed(isConnectionReset: false)
        close()
        release(isReusable: false, pool: job.pool)
        resume(job, job.wasCancelled ? .cancelled : .connectFailed(failure))
    }

    /// Whether an idle connection can still carry a request: nothing to read, or only bytes of the stream's own
    /// (a TLS session ticket) that leave no application data. Application bytes or the end of the stream mean
    /// it cannot.
    private func isUsableAfterIdle(knownReadable: Bool) -> Bool {
        guard let stream else { return false }
        guard knownReadable || stream.hasBufferedBytes || NetworkSocket.isReadable(descriptor) else { return true }
        bufferStart = 0
        bufferEnd = 0
        switch try? stream.read(into: buffer) {
        case .wouldBlock?: return true
        case .transferred?: _ = machine.idleBytesArrived(isApplicationData: true)
        case .endOfStream?, nil: _ = machine.endOfStream()
        }
        return false
    }

    // MARK: Driving

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        perform(.readiness(readable: readable, writable: writable, descriptor: descriptor)) {
            handleReadiness(readable: readable, writable: writable)
        }
    }

    private func handleReadiness(readable: Bool, writable: Bool) {
        switch phase {
        case .idle:
            // Readable while idle: the server closed the connection (or sent bytes nobody asked for).
            if readable, job == nil, !isUsableAfterIdle(knownReadable: true) {
                close()
                pool?.discard(.http1(self))
            }
        case .connecting:
            if writable { connectAttemptEnded() }
        case .resolving, .paused:
            return
        default:
            drive()
        }
    }

    /// Queues the request for sending and enters the sending phase; a body read as it is sent gets a fresh reader,
    /// so a request sent again after a stale connection sends its body from the start.
    ///
    /// - Throws: ``RequestError`` when the body's reader cannot be made (a file gone).
    ///
    /// - Parameter idleClockStart: When the idle clock starts: the request's submission on a kept-alive connection,
    ///   nil (now) after a connection was made for it.
    private func prepareSending(idleClockStart: UInt64? = nil) throws {
        outgoing.removeAll()
        outgoingOffset = 0
        headOffset = 0
        guard let job else { throw ExchangeFailure.closedBeforeResponse(nil) }
        outgoingHead = job.head
        if job.body.count <= 16 * 1024 {
            // One write, one packet: a small body goes out with the head.
            if !job.body.isEmpty { outgoingHead.append(contentsOf: job.body) }
        } else {
            outgoing.append(job.body)
        }
        bodyReader = try job.makeBodyReader?()
        isReaderDone = bodyReader == nil
        job.record.noteSendStart()
        readerBytes = 0
        armTimeout(job.idleTimeout, since: idleClockStart)
    }

    /// Moves the current phase on as far as the stream allows, then waits for the readiness it needs.
    private func drive() {
        do {
            while true {
                let waitingFor: ByteStreamResult.Interest?
                switch phase {
                case .handshaking: waitingFor = try handshake()
                case .sending: waitingFor = try send()
                case .receivingHead: waitingFor = try receiveHead()
                case .receivingBody: waitingFor = try receiveBody()
                case .streaming: waitingFor = try streamBody()
                case .idle, .resolving, .connecting, .paused: return
                }
                if let waitingFor {
                    if waitingFor == .readable, stream?.hasBufferedBytes == true { continue }
                    // While the request is written, an early response is watched for too (``takeEarlyResponse()``).
                    let sending: LoopInterest = phase == .sending ? [.readable, .writable] : .writable
                    setInterest(waitingFor == .readable ? .readable : sending)
                    return
                }
            }
        } catch {
            // A machine event may have ended the phase already: whether a body streams decides who fails.
            if pump != nil {
                failPump(error)
            } else {
                fail(error)
            }
        }
    }

    private func setInterest(_ new: LoopInterest) {
        guard descriptor >= 0, new != interest else { return }
        if isOffLoop {
            // The registration is the loop's: it works out again what to wait for.
            handToLoop(.drive)
            return
        }
        do {
            try loop.setInterest(new, for: descriptor)
            interest = new
        } catch {
            watchingRefused(error)
        }
    }

    /// The system refused to watch the socket: nothing could wake the job (or the streamed body), so it ends now.
    private func watchingRefused(_ error: any Error) {
        if pump != nil { failPump(error) } else if job != nil { fail(error) }
    }

    /// One handshake step; nil once the stream is ready (then the request is sent).
    private func handshake() throws -> ByteStreamResult.Interest? {
        guard let stream else { throw ExchangeFailure.closedBeforeResponse(nil) }
        switch try stream.handshake() {
        case .wouldBlock(let interest):
            // A handshake that stalls is bounded by the connect timeout, from when the socket connected.
            if connectTimer == nil {
                connectTimer = loop.schedule(after: connectTimeout) { [weak self] in
                    self?.perform(.handshakeTimedOut)
                }
            }
            return interest
        case .transferred, .endOfStream:
            if let connectTimer { loop.cancel(connectTimer) }
            connectTimer = nil
            _ = machine.handshakeCompleted()
            if key.isSecure {
                job?.record.handshakeEnd = EventLoop.now()
                facts = facts?.negotiated(stream.negotiatedTLS)
            }
            if let pool, pool.negotiates(key) {
                #if canImport(CNghttp2)
                if key.isSecure ? stream.negotiatedApplicationProtocol == "h2" : true {
                    try handOverToHTTP2(stream, pool: pool)
                    return nil
                }
                #endif
                pool.negotiatedHTTP1(self)
            }
            try prepareSending()
            return nil
        }
    }

    #if canImport(CNghttp2)
    /// The server speaks HTTP/2 (it chose `h2` in the TLS handshake, or the policy says it speaks h2c): an
    /// ``HTTP2Connection`` takes the socket, the job and this connection's place in the pool, and this one is done.
    private func handOverToHTTP2(_ stream: any ByteStream, pool: ConnectionPool) throws {
        guard let job else { throw ExchangeFailure.closedBeforeResponse(nil) }
        let handed = descriptor
        loop.deregister(handed)
        for timer in [connectTimer, timeoutTimer].compactMap({ $0 }) { loop.cancel(timer) }
        let successor: HTTP2Connection
        do {
            successor = try HTTP2Connection(
                id: id, key: key, loop: loop, pool: pool, stream: stream, limits: job.limits,
                facts: facts?.speaking("h2"))
        } catch {
            close()
            throw error
        }
        // Nothing of the socket is this connection's any more.
        self.stream = nil
        descriptor = -1
        interest = []
        connectTimer = nil
        timeoutTimer = nil
        timerDeadline = nil
        timeoutNanoseconds = nil
        self.job = nil
        machine.closed()
        successor.takeOver(job)
    }
    #endif

    private func handshakeTimedOut() {
        connectTimer = nil
        guard phase == .handshaking else { return }
        fail(
            RequestError.timedOut(
                "\(pendingHandshakeStep) did not finish within \(FoundationMapping.seconds(connectTimeout)) s"))
    }

    /// The handshake step a connection waits on, for the message of a timeout: a step of a proxy's tunnel, or the
    /// TLS handshake with the origin.
    private var pendingHandshakeStep: String {
        (stream as? ProxyTunnelByteStream)?.pendingStep ?? "the TLS handshake with \(key.host) port \(key.port)"
    }

    /// Writes what is queued, refilling the queue from the body reader; once the whole request is sent, moves on to
    /// the response and waits for it to become readable.
    private func send() throws -> ByteStreamResult.Interest? {
        do {
            if let blocked = try writeQueued() {
                // A server may answer before it has read the whole request (a 413 for a body too large) and stop
                // reading: its answer is read rather than waiting for room that never comes.
                return try takeEarlyResponse() ? nil : blocked
            }
        } catch let failure as ExchangeFailure {
            // Or answer and close: the answer is in the socket before the reset that failed the write.
            if try takeEarlyResponse() { return nil }
            throw failure
        }
        _ = machine.requestWritten()
        sentAt = EventLoop.now()
        job?.record.sendEnd = sentAt
        // The response cannot have arrived yet: wait for it rather than try a read that would find nothing.
        return .readable
    }

    /// Writes what is queued, refilling the queue from the body reader; nil once the whole request is written, or the
    /// readiness to wait for.
    private func writeQueued() throws -> ByteStreamResult.Interest? {
        guard let stream, let job else { throw ExchangeFailure.closedBeforeResponse(nil) }
        while headOffset < outgoingHead.count {
            let blocked = try outgoingHead.withUnsafeBytes { try write($0, from: &headOffset, to: stream) }
            if let blocked { return blocked }
        }
        while true {
            while let first = outgoing.first {
                if outgoingOffset == first.count {
                    outgoing.removeFirst()
                    outgoingOffset = 0
                    continue
                }
                let blocked = try first.withUnsafeBytes { try write($0, from: &outgoingOffset, to: stream) }
                if let blocked { return blocked }
            }
            guard !isReaderDone, let reader = bodyReader else { return nil }
            try queueBody(from: reader, length: job.bodyLength)
        }
    }

    /// Reads what the server sent while the request is still being written. Response bytes stop the sending: the
    /// response is read from them on (``receiveHead()``), and the connection is not reused, its request unfinished.
    ///
    /// - Returns: Whether response bytes arrived.
    /// - Throws: ``ExchangeFailure/closedBeforeResponse(_:)`` when the server closed without a byte.
    private func takeEarlyResponse() throws -> Bool {
        guard let stream, stream.hasBufferedBytes || NetworkSocket.isReadable(descriptor) else { return false }
        let (count, waitingFor) = try fillBuffer()
        if waitingFor != nil { return false }
        if count == 0 { throw ExchangeFailure.closedBeforeResponse(nil) }
        _ = machine.earlyResponseArrived()
        sentAt = EventLoop.now()
        return true
    }

    /// Writes what `stream` takes of `bytes` from `offset` on, moving `offset` past it; the readiness to wait for
    /// when it takes nothing now.
    private func write(
        _ bytes: UnsafeRawBufferPointer, from offset: inout Int, to stream: any ByteStream
    ) throws -> ByteStreamResult.Interest? {
        let result: ByteStreamResult
        do {
            result = try stream.write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        } catch let error as POSIXError {
            throw ExchangeFailure.closedBeforeResponse(error)
        }
        switch result {
        case .transferred(let count):
            offset += count
            lastActivity = EventLoop.now()
            job?.record.bytesSent += count
            return nil
        case .endOfStream: throw ExchangeFailure.closedBeforeResponse(nil)
        case .wouldBlock(let interest): return interest
        }
    }

    /// Queues the next block of a body read as it is sent (chunked when its length is unknown), or its end.
    private func queueBody(from reader: RequestBodyReader, length: Int?) throws {
        if let block = try reader.read(upTo: 64 * 1024) {
            readerBytes += block.count
            if let length, readerBytes > length { throw Self.bodyLengthChanged(length) }
            if length == nil {
                outgoing.append(Data((String(block.count, radix: 16) + "\r\n").utf8))
                var framed = block
                framed.append(contentsOf: [0x0D, 0x0A])
                outgoing.append(framed)
            } else {
                outgoing.append(block)
            }
            return
        }
        isReaderDone = true
        if let length, readerBytes != length { throw Self.bodyLengthChanged(length) }
        if length == nil { outgoing.append(Data("0\r\n\r\n".utf8)) }
    }

    private static func bodyLengthChanged(_ length: Int) -> RequestError {
        RequestError.transport(
            POSIXError(.EIO), detail: "the request body no longer has the \(length) bytes announced in Content-Length")
    }

    /// Reads into the free end of the buffer: the byte count (0 at the end of the stream), or the readiness to wait
    /// for. A failure before any response byte means the connection closed before a response.
    private func fillBuffer() throws -> (count: Int, waitingFor: ByteStreamResult.Interest?) {
        guard let stream else { throw ExchangeFailure.closedBeforeResponse(nil) }
        compactBuffer()
        let free = UnsafeMutableRawBufferPointer(rebasing: buffer[bufferEnd...])
        let result: ByteStreamResult
        do {
            result = try stream.read(into: free)
        } catch let error as POSIXError where !machine.hasResponseBytes {
            throw ExchangeFailure.closedBeforeResponse(error)
        } catch let error as POSIXError {
            throw NetworkSocket.Failure.system(error)
        }
        switch result {
        case .transferred(let count):
            bufferEnd += count
            lastActivity = EventLoop.now()
            if let job {
                job.record.received(count, at: lastActivity)
            } else {
                pump?.record.received(count, at: lastActivity)
            }
            return (count, nil)
        case .endOfStream:
            return (0, nil)
        case .wouldBlock(let interest):
            return (0, interest)
        }
    }

    /// Parses the final response head; nil once it is parsed (and the body phase begun).
    private func receiveHead() throws -> ByteStreamResult.Interest? {
        guard let job else { throw ExchangeFailure.closedBeforeResponse(nil) }
        let limits = job.limits
        while true {
            if bufferEnd > bufferStart,
                let (head, length) = try ResponseHead.parse(
                    UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd]), limits: limits.head)
            {
                bufferStart += length
                if head.isInformational {
                    switch machine.informationalHeadParsed() {
                    // An interim answer (100 Continue) while the request is written: the writing goes on.
                    case .resumeSending: return nil
                    case .fail: throw HTTP1ParseError.tooManyInformationalResponses
                    default: continue
                    }
                }
                lateAnswers = EventLoop.now() &- sentAt <= pollWindow ? 0 : min(lateAnswers + 1, 2)
                try headArrived(head, job: job)
                return nil
            }
            compactBuffer()
            guard bufferEnd < buffer.count else { throw HTTP1ParseError.headTooLarge }
            let (count, waitingFor) = try fillBuffer()
            if let waitingFor { return waitingFor }
            if count == 0 {
                // The machine decides in fail(): sent again on a fresh connection, or failed.
                if !machine.hasResponseBytes { throw ExchangeFailure.closedBeforeResponse(nil) }
                throw HTTP1ParseError.truncatedHead
            }
            machine.responseBytesArrived()
        }
    }

    private func headArrived(_ head: ResponseHead, job: RequestJob) throws {
        let framing = try head.framing(isHeadRequest: job.isHeadRequest)
        switch job.mode {
        case .buffered(let bodyLimit):
            if case .length(let count) = framing {
                // A body announced over the limit fails before any of it is read.
                if count > bodyLimit { throw ResponseTooLarge(head: head, isRatio: false, limit: bodyLimit) }
                progress.body.reserveCapacity(min(count, 1 << 24))
            }
            var bodyLimits = job.limits.body
            bodyLimits.maxBodyBytes = bodyLimit
            progress.head = head
            progress.decoder = HTTP1BodyDecoder(framing: framing, limits: bodyLimits)
            _ = machine.finalHeadParsed(Self.finalHead(head, isStreamed: false))
        case .streaming(let options):
            let bodyLimit = options.responseLimits.maxStreamedBodyBytes ?? .max
            let contentDecoder =
                framing == .none
                ? nil
                : try ContentDecoder(
                    codings: head.tokens(of: "Content-Encoding"), maxBytes: bodyLimit,
                    maxRatio: options.responseLimits.maxDecompressionRatio,
                    ratioAllowance: ResponseLimits.decompressionAllowance)
            var bodyLimits = job.limits.body
            bodyLimits.maxBodyBytes = bodyLimit
            let continuation = options.continuation
            pumpGeneration += 1
            pump = HTTP1BodyPump(
                head: head, url: options.url, decoder: HTTP1BodyDecoder(framing: framing, limits: bodyLimits),
                contentDecoder: contentDecoder, continuation: continuation, pool: job.pool,
                idleTimeout: job.idleTimeout, bodyLimit: bodyLimit,
                maxRatio: options.responseLimits.maxDecompressionRatio, record: job.record)
            let generation = pumpGeneration
            let loop = loop
            continuation.onDemand = { [weak self] in
                loop.execute { self?.perform(.resumePump(generation: generation)) }
            }
            continuation.onTermination = { [weak self] in
                loop.execute { self?.perform(.terminatePump(generation: generation)) }
            }
            self.job = nil
            _ = machine.finalHeadParsed(Self.finalHead(head, isStreamed: true))
            resume(job, .head(head))
        }
    }

    /// Reads the rest of a buffered body; nil once the job has finished.
    private func receiveBody() throws -> ByteStreamResult.Interest? {
        guard var decoder = progress.decoder, let head = progress.head, let job else {
            throw HTTP1ParseError.truncatedHead
        }
        defer { progress.decoder = decoder }
        while !decoder.isComplete {
            if bufferEnd > bufferStart {
                let available = UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd])
                do {
                    bufferStart += try decoder.decode(available, into: &progress.body)
                } catch {
                    guard error == .bodyTooLarge, case .buffered(let bodyLimit) = job.mode else { throw error }
                    throw ResponseTooLarge(head: head, isRatio: false, limit: bodyLimit)
                }
                if decoder.isComplete { break }
            }
            compactBuffer()
            guard bufferEnd < buffer.count else { throw HTTP1ParseError.invalidChunkSize }
            let (count, waitingFor) = try fillBuffer()
            if let waitingFor { return waitingFor }
            if count == 0 { try finishAtEndOfStream(&decoder) }
        }
        let isReusable = bodyCompleted(decoder)
        job.record.noteComplete(at: lastActivity)
        let exchanged = (head: head, body: progress.body, isReusable: isReusable)
        progress = HTTP1ResponseProgress()
        finishJob(.response(exchanged), isReusable: isReusable)
        return nil
    }

    /// What the state machine needs of a final head.
    private static func finalHead(_ head: ResponseHead, isStreamed: Bool) -> HTTP1ConnectionStateMachine.FinalHead {
        HTTP1ConnectionStateMachine.FinalHead(
            isKeepAlive: head.isKeepAlive, hasAmbiguousFraming: head.hasAmbiguousFraming,
            isSwitchingProtocols: head.status == 101, isStreamed: isStreamed)
    }

    /// Tells the state machine the body is whole: returns whether the connection is kept for another request.
    private func bodyCompleted(_ decoder: HTTP1BodyDecoder) -> Bool {
        let body = HTTP1ConnectionStateMachine.CompletedBody(
            wasDelimitedByClose: decoder.endsWithClose, hasExtraBytes: bufferStart != bufferEnd)
        guard case .finish(let isReusable) = machine.bodyCompleted(body) else { return false }
        return isReusable
    }

    /// Ends a body at the end of the stream, as the state machine decides: whole when the connection's close
    /// delimits it, unless the close was not confirmed (TLS without close_notify), when it may have been cut
    /// anywhere (RFC 9112, section 9.8); truncated otherwise.
    private func finishAtEndOfStream(_ decoder: inout HTTP1BodyDecoder) throws {
        let action = machine.endOfStream(
            isDelimitedByClose: decoder.isDelimitedByClose, isConfirmed: stream?.isEndUnconfirmed != true)
        switch action {
        case .bodyEndsHere: try decoder.finishAtEndOfStream()
        case .fail(.unconfirmedEnd): throw HTTP1ParseError.unconfirmedEnd
        default: throw HTTP1ParseError.truncatedBody
        }
    }

    // MARK: Streaming a body

    /// Moves the body into the consumer's stream until its buffer is full (then pauses: the socket is not read
    /// until the consumer catches up), the body ends, or the socket has nothing more yet.
    private func streamBody() throws -> ByteStreamResult.Interest? {
        guard let pump else { return nil }
        while true {
            if pump.continuation.isTerminated { throw CancellationError() }
            var isFull = false
            if bufferEnd > bufferStart {
                var piece = Data()
                let available = UnsafeRawBufferPointer(rebasing: buffer[bufferStart..<bufferEnd])
                bufferStart += try pump.decoder.decode(available, into: &piece)
                if !piece.isEmpty {
                    let plain = try pump.contentDecoder?.decode(piece) ?? piece
                    pump.bodyBytes += plain.count
                    if !plain.isEmpty, !pump.continuation.yield(plain) {
                        if pump.continuation.isTerminated { throw CancellationError() }
                        isFull = true
                    }
                }
            }
            if pump.decoder.isComplete {
                try pump.contentDecoder?.finish()
                let isReusable = bodyCompleted(pump.decoder)
                self.pump = nil
                pump.record.noteComplete(at: lastActivity)
                // Back in the pool before the consumer sees the end: its next request can take this connection.
                release(isReusable: isReusable, pool: pump.pool)
                pump.continuation.finish(attempt: endedAttempt(of: pump))
                return nil
            }
            if isFull {
                _ = machine.consumerFull()
                setInterest([])
                return nil
            }
            compactBuffer()
            guard bufferEnd < buffer.count else { throw HTTP1ParseError.invalidChunkSize }
            let (count, waitingFor) = try fillBuffer()
            if let waitingFor {
                armTimeout(pump.idleTimeout, keepingActivity: true)
                return waitingFor
            }
            if count == 0 { try finishAtEndOfStream(&pump.decoder) }
        }
    }

    private func resumePump(_ generation: Int) {
        guard generation == pumpGeneration, phase == .paused, pump != nil else { return }
        _ = machine.consumerDemanded()
        lastActivity = EventLoop.now()
        drive()
    }

    private func terminatePump(_ generation: Int) {
        guard generation == pumpGeneration, phase == .streaming || phase == .paused, pump != nil else { return }
        failPump(CancellationError())
    }

    private func failPump(_ error: any Error) {
        guard let pump else { return }
        self.pump = nil
        close()
        let failure: RequestError
        if error is CancellationError {
            failure = RequestError.cancelled(underlyingError: error)
        } else if let tooLarge = ResponseTooLarge(
            error, head: pump.head, bodyLimit: pump.bodyLimit, maxRatio: pump.maxRatio)
        {
            failure = tooLarge.requestError(url: pump.url)
        } else {
            failure = NativeTransport.requestError(for: error, idleTimeout: pump.idleTimeout, key: key)
        }
        pump.continuation.finish(throwing: failure, attempt: endedAttempt(of: pump))
        release(isReusable: false, pool: pump.pool)
    }

    /// The attempt of a streamed body's job as it ends now; nil when the transport records no metrics.
    private func endedAttempt(of pump: HTTP1BodyPump) -> RequestMetrics.Attempt? {
        guard pump.record.isRecording else { return nil }
        var record = pump.record
        record.connection = facts
        return record.attempt(
            url: pump.url, status: HTTPStatus(code: pump.head.status), bodyBytes: pump.bodyBytes,
            end: record.complete != 0 ? record.complete : EventLoop.now())
    }

    // MARK: Timeouts

    /// Starts (or keeps) the idle timeout: the job fails when no byte moves for `seconds`, counted from `since`
    /// (``EventLoop/now()`` nanoseconds; now when nil).
    private func armTimeout(_ seconds: Double, since: UInt64? = nil, keepingActivity: Bool = false) {
        guard seconds > 0, seconds.isFinite, seconds < 1e8 else {
            timeoutNanoseconds = nil
            return
        }
        let nanoseconds = UInt64(seconds * 1e9)
        if !keepingActivity || timeoutNanoseconds == nil { lastActivity = since ?? EventLoop.now() }
        timeoutNanoseconds = nanoseconds
        scheduleTimeoutCheck(at: lastActivity &+ nanoseconds)
    }

    private func scheduleTimeoutCheck(at deadline: UInt64) {
        // A pending check that comes first re-checks then, from the latest activity.
        if let timerDeadline, timerDeadline <= deadline { return }
        guard loop.isCurrent else {
            // From the task the connection is lent to (``runInline(_:polls:)``): timers are the loop's.
            handToLoop(.scheduleTimeoutCheck(deadline: deadline))
            return
        }
        if let timeoutTimer { loop.cancel(timeoutTimer) }
        timerDeadline = deadline
        timeoutTimer = loop.schedule(at: deadline) { [weak self] in self?.checkTimeoutOnLoop() }
    }

    private func checkTimeoutOnLoop() {
        perform(.checkTimeout) { checkTimeout() }
    }

    private func checkTimeout() {
        timeoutTimer = nil
        timerDeadline = nil
        guard let timeoutNanoseconds else { return }
        switch phase {
        case .resolving, .connecting, .handshaking, .sending, .receivingHead, .receivingBody, .streaming: break
        case .idle, .paused: return
        }
        let deadline = lastActivity &+ timeoutNanoseconds
        guard EventLoop.now() >= deadline else {
            scheduleTimeoutCheck(at: deadline)
            return
        }
        let step =
            phase == .handshaking
            ? "finish \(pendingHandshakeStep)"
            : key.proxy.map {
                "connect to \($0.server.place) (the \($0.server.kind.rawValue) proxy for \(key.host) port \(key.port))"
            } ?? "connect to \(key.host) port \(key.port)"
        switch machine.timedOut() {
        case .fail(.connectTimedOut):
            fail(
                RequestError.timedOut(
                    "could not \(step) within the request's timeout of "
                        + "\(FoundationMapping.seconds(Double(timeoutNanoseconds) / 1e9)) s"))
        case .fail:
            if pump != nil { failPump(NetworkSocket.Failure.timedOut) } else { fail(NetworkSocket.Failure.timedOut) }
        default:
            return
        }
    }

    // MARK: Buffer

    /// Moves unread bytes to the start of the buffer so that the free space after them is as large as possible.
    private func compactBuffer() {
        if bufferStart == bufferEnd {
            bufferStart = 0
            bufferEnd = 0
        } else if bufferStart > 0 {
            let count = bufferEnd - bufferStart
            guard let base = buffer.baseAddress else { return }
            memmove(base, base + bufferStart, count)
            bufferStart = 0
            bufferEnd = count
        }
    }
}
