import Foundation
import RequestKitSockets

/// One open, kept-alive HTTP/1.1 connection, driven by readiness on its event loop: it sends a job's request, reads
/// the response, and either hands back the whole response or streams the body at the pace its consumer reads it.
/// Bytes move only through its ``ByteStream``, which its ``Connector`` opened.
///
/// A shell around its ``HTTP1ConnectionStateMachine``: every event (readiness, a parsed head, a timer, a
/// cancellation) goes into the machine, and every action comes out through ``run(_:error:)``; this class does the
/// reading, writing, parsing and timing those actions call for, and decides nothing itself.
///
/// Its loop owns it: every step (readiness, timers, and what other threads hand the loop) runs on the loop's thread,
/// and reads or writes at most ``EventLoop/readBudget`` or ``EventLoop/writeBudget`` bytes before the loop goes on.
/// The one exception is the fast path the pool chooses for a request on an idle connection while the loop waits:
/// the connection is lent to the awaiting task (``LoopOwnedConnection``), which writes the request itself and
/// may read a prompt response (``runInline(_:polls:)``), so that a request on a kept-alive connection needs no
/// wake-up of the loop. The loop, finding it lent, leaves its steps for when it comes back; nobody waits.
final class HTTP1Connection: EventLoopHandler, LoopOwnedConnection, @unchecked Sendable {
    // Safe: every mutable field is only touched by the connection's owner, the loop or the task it is lent to
    // (``ConnectionOwnership``, whose atomic handoffs order one owner's writes before the next one's reads). No
    // access to a field is held across a call that could reach it again (the byte stream, the job and the pool never
    // call back into the connection), so the fields changed on every request skip the runtime's exclusivity checks.

    /// The connection's identifier in its pool's ``ConnectionPoolStateMachine``.
    let id: ConnectionPool.Machine.ConnectionID
    /// The host and port this connection goes to.
    let key: ConnectionKey
    /// The loop that drives it.
    let loop: EventLoop
    /// Who holds the connection: its loop, or the task that writes its request itself (``runInline(_:polls:)``).
    let ownership = ConnectionOwnership<HTTP1ConnectionStep>()
    private weak var pool: ConnectionPool?
    private let stream: any ByteStream
    private let descriptor: Int32
    private let facts: ConnectionFacts?
    @exclusivity(unchecked) private var reader: HTTP1ResponseReader

    /// The connection's phase and every protocol decision: the one source of truth for where it is.
    @exclusivity(unchecked) private var machine = HTTP1ConnectionStateMachine()
    private var interest: LoopInterest = []
    private var isRegistered = false
    private var isClosed = false

    @exclusivity(unchecked) private var job: RequestJob?
    @exclusivity(unchecked) private var writer: HTTP1RequestWriter?
    private var pump: HTTP1BodyPump?
    private var pumpGeneration = 0
    @exclusivity(unchecked) private var idle = HTTP1IdleTimeout()

    /// When the current request was written whole, in loop-clock nanoseconds.
    @exclusivity(unchecked) private var sentAt: UInt64 = 0
    /// Whether ``runInline(_:polls:)`` runs: the loop's registrations and timers are then not to be touched.
    @exclusivity(unchecked) private var isOffLoop = false
    /// Whether ``runInline(_:polls:)`` looks for the response, from how promptly the server answered.
    @exclusivity(unchecked) private var polling: HTTP1PromptPolling
    /// How many times ``runInline(_:polls:)`` looked for a response, and how many responses it read.
    private let polls = AtomicWord()
    private let answered = AtomicWord()

    /// A connection over `stream`, which its connector opened (connected, handshakes done).
    init(
        id: ConnectionPool.Machine.ConnectionID, key: ConnectionKey, loop: EventLoop, pool: ConnectionPool,
        stream: any ByteStream, facts: ConnectionFacts?, bufferSize: Int, pollWindow: UInt64
    ) {
        self.id = id
        self.key = key
        self.loop = loop
        self.pool = pool
        self.stream = stream
        self.descriptor = stream.descriptor
        self.facts = facts
        polling = HTTP1PromptPolling(window: pollWindow)
        reader = HTTP1ResponseReader(capacity: bufferSize)
    }

    deinit {
        stream.close()
    }

    // MARK: Owning

    func handle(_ step: HTTP1ConnectionStep) {
        switch step {
        case .start(let job): start(job)
        case .cancel(let job): cancelJob(job)
        case .closeIdle: run(machine.closeRequested())
        case .readiness(let readable, let writable):
            watch(interest, force: true)
            handleReadiness(readable: readable, writable: writable)
        case .drive: drive()
        case .fail(let error): fail(error)
        case .scheduleTimeoutCheck(let deadline): scheduleTimeoutCheck(at: deadline)
        case .checkTimeout: checkTimeout()
        case .resumePump(let generation):
            if generation == pumpGeneration, pump != nil { run(machine.consumerDemanded()) }
        case .terminatePump(let generation):
            if generation == pumpGeneration, pump != nil { fail(CancellationError()) }
        }
    }

    /// The step kept for readiness that came while the connection was lent. Readiness would be reported again at
    /// once (the loop's watching is level-triggered): the loop stops watching the socket until the step runs.
    private func readinessWhileLent(readable: Bool, writable: Bool) -> HTTP1ConnectionStep {
        try? loop.setInterest([], for: descriptor)
        return .readiness(readable: readable, writable: writable)
    }

    /// Ends `job` with `outcome` once the connection is out of its owner's hands.
    private func resume(_ job: RequestJob, _ outcome: RequestJob.Outcome) {
        if job.record.isRecording, job.record.assigned != 0 { job.record.connection = facts }
        finish(job, outcome)
    }

    // MARK: Entry points

    /// Starts `job` on this connection, on the loop.
    func run(_ job: RequestJob) {
        perform(.start(job)) { start(job) }
    }

    /// Cancels `job` when it is still this connection's: the connection closes.
    func cancel(_ job: RequestJob) {
        perform(.cancel(job)) { cancelJob(job) }
    }

    /// Closes an idle connection the pool let go of (on the loop).
    func closeIdle() {
        perform(.closeIdle) { run(machine.closeRequested()) }
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        perform(readinessWhileLent(readable: readable, writable: writable)) {
            handleReadiness(readable: readable, writable: writable)
        }
    }

    /// Sends `job`'s request from the calling thread (the awaiting task's) when the loop can lend this connection
    /// and it is idle and still usable: the request is written at once, and the loop, which watches the idle socket
    /// already, reads the response when it arrives. Returns false, having changed nothing, when the loop must start
    /// the job instead (``run(_:)``); a request that cannot be written whole, or fails, is handed to the loop.
    ///
    /// When `polls`, the task then looks for the response itself for up to the window
    /// (``NativeTransport/Configuration/responsePollWindow``), reading it when it comes, unless the server's last two
    /// answers here came later than the window (``HTTP1PromptPolling``). The reads do not block. The pool asks for it
    /// only for the one request in flight: its task has nothing else to run meanwhile.
    func runInline(_ job: RequestJob, polls: Bool) -> Bool {
        lent {
            isOffLoop = true
            defer { isOffLoop = false }
            let isSent = sendInline(job)
            if isSent, polls, isReceiving(job), polling.startsPolling() {
                self.polls.add(1)
                let deadline = sentAt &+ polling.window
                while drive(polling: job), loop.now() < deadline {}
                if self.job !== job { answered.add(1) }
            }
            return isSent
        }
    }

    /// The sending of ``runInline(_:polls:)``, the connection lent.
    private func sendInline(_ job: RequestJob) -> Bool {
        guard machine.phase == .idle, self.job == nil, interest == .readable, !job.wasCancelled,
            reader.checkIdle(stream, knownReadable: false) == .usable
        else { return false }
        begin(job)
        run(machine.requestStarted(isIdempotent: job.isIdempotent, canRetry: !job.hasRetried, isStillOpen: true))
        var budget = EventLoop.writeBudget
        do {
            _ = try send(&budget)
        } catch {
            handToLoop(.fail(error))
            return true
        }
        // Written whole, the socket is watched for reading already; otherwise the loop goes on.
        if machine.phase == .sending { handToLoop(.drive) }
        return true
    }

    /// Whether `job` is this connection's and waits for its response.
    private func isReceiving(_ job: RequestJob) -> Bool {
        self.job === job && (machine.phase == .receivingHead || machine.phase == .receivingBody)
    }

    /// How many times ``runInline(_:polls:)`` looked for a response, and how many responses it read.
    var pollCounts: (polls: Int, answered: Int) {
        (Int(truncatingIfNeeded: polls.load()), Int(truncatingIfNeeded: answered.load()))
    }

    // MARK: Actions

    private func start(_ job: RequestJob) {
        if isClosed {
            // The server hung up while the job was on its way here: it goes elsewhere unsent, and the socket, closed
            // already, is never registered again (its number may be another connection's by now).
            begin(job)
            return run(
                machine.requestStarted(isIdempotent: job.isIdempotent, canRetry: !job.hasRetried, isStillOpen: false))
        }
        if !isRegistered {
            isRegistered = true
            do {
                try loop.register(descriptor, interest: [], handler: self)
            } catch {
                // Nothing could wake the request: it starts, and fails with the system's refusal.
                begin(job)
                run(machine.requestStarted(isIdempotent: false, canRetry: false, isStillOpen: true))
                return fail(error)
            }
        }
        if job.wasCancelled {
            resume(job, .cancelled)
            return release(isReusable: machine.phase == .idle, pool: job.pool)
        }
        let isStillOpen = machine.startedCount == 0 || reader.checkIdle(stream, knownReadable: false) == .usable
        begin(job)
        run(machine.requestStarted(isIdempotent: job.isIdempotent, canRetry: !job.hasRetried, isStillOpen: isStillOpen))
        drive()
    }

    /// Takes `job` on: a fresh response and its record.
    private func begin(_ job: RequestJob) {
        self.job = job
        reader.startResponse()
        job.record.assign(isReused: machine.startedCount > 0, at: loop.now())
    }

    private func cancelJob(_ job: RequestJob) {
        guard self.job === job else { return }
        run(machine.cancelled())
    }

    /// Carries out what the machine decided; `error` is the failure the event reported, when it did.
    private func run(_ action: HTTP1ConnectionStateMachine.Action, error: (any Error)? = nil) {
        switch action {
        case .none, .readNextHead, .resumeSending, .readBody:
            return
        case .send:
            guard let job else { return }
            do {
                writer = try HTTP1RequestWriter(job)
            } catch {
                return fail(error)
            }
            job.record.noteSendStart(at: loop.now())
            armTimeout(job.idleTimeout, since: job.idleClockStart)
        case .readResponse:
            sentAt = loop.now()
        case .deliverHead:
            guard let job, let pump else { return }
            self.job = nil
            resume(job, .head(pump.head))
        case .bodyEndsHere:
            do {
                try reader.finishAtEndOfStream(streamingTo: pump)
            } catch {
                fail(error)
            }
        case .pauseReading:
            watch([])
        case .resumeReading:
            idle.lastActivity = loop.now()
            drive()
        case .finish(let isReusable):
            finish(isReusable: isReusable)
        case .retry, .sendElsewhere:
            guard let job else { return close() }
            self.job = nil
            close()
            if action == .retry {
                // Sent once more, on a fresh connection.
                job.hasRetried = true
                job.requiresFreshConnection = true
                job.record.restart()
            }
            release(isReusable: false, pool: job.pool)
            job.pool.submit(job)
        case .fail(let failure):
            let reason = error ?? failure.error
            close()
            if pump != nil { return endPump(failing: reason) }
            guard let job else { return }
            self.job = nil
            release(isReusable: false, pool: job.pool)
            if job.wasCancelled || failure == .cancelled { return resume(job, .cancelled) }
            resume(job, .failed(reason, wasReused: machine.isReused))
        case .discard:
            close()
            pool?.discard(.http1(self))
        case .close:
            close()
        }
    }

    /// The exchange (or a streamed body) failed with `error`: the machine decides whether it is sent again.
    private func fail(_ error: any Error) {
        guard machine.phase != .closed else { return }
        var isReset = false
        if case ExchangeFailure.closedBeforeResponse = error { isReset = true }
        run(machine.failed(isConnectionReset: isReset), error: error)
    }

    /// The response is whole: the job gets it (or a streamed body its end) and the connection goes back.
    private func finish(isReusable: Bool) {
        if let pump {
            self.pump = nil
            pump.record.noteComplete(at: idle.lastActivity)
            // Back in the pool before the consumer sees the end: its next request can take this connection.
            release(isReusable: isReusable, pool: pump.pool)
            return pump.end(failing: nil, key: key, connection: facts, now: loop.now())
        }
        guard let job, let response = reader.takeResponse() else { return }
        self.job = nil
        job.record.noteComplete(at: idle.lastActivity)
        let exchanged = (head: response.head, body: response.body, isReusable: isReusable)
        release(isReusable: isReusable, pool: job.pool)
        resume(job, .response(exchanged))
    }

    /// Closes the socket and stops the timer; the connection carries nothing more.
    private func close() {
        guard !isClosed else { return }
        isClosed = true
        let (closing, wasRegistered, loop, stream) = (descriptor, isRegistered, loop, stream)
        let timer = idle.timer
        let letGo = {
            if wasRegistered { loop.deregister(closing) }
            stream.close()
            if let timer { loop.cancel(timer) }
        }
        if !isOffLoop {
            letGo()
        } else {
            // From the awaiting task (``receiveOffLoop(_:)``): the loop stops watching the socket before it is
            // closed (so that its number is not reused while watched), and cancels the timer, which is its own.
            loop.execute(letGo)
        }
        isRegistered = false
        interest = []
        idle = HTTP1IdleTimeout()
        writer = nil
    }

    private func release(isReusable: Bool, pool: ConnectionPool) {
        idle.nanoseconds = nil
        if isReusable { watch(.readable) } else { close() }
        pool.release(.http1(self), isReusable: isReusable)
    }

    // MARK: Reading and writing

    private func handleReadiness(readable: Bool, writable: Bool) {
        switch machine.phase {
        case .idle:
            // Readable while idle: the server closed the connection (or sent bytes nobody asked for).
            guard readable, job == nil else { return }
            switch reader.checkIdle(stream, knownReadable: true) {
            case .usable: return
            case .applicationData: run(machine.idleBytesArrived(isApplicationData: true))
            case .ended: run(machine.endOfStream())
            }
        case .paused, .closed:
            return
        case .sending, .receivingHead, .receivingBody, .streaming:
            drive()
        }
    }

    /// Moves the current phase on as far as the stream and the turn's budget allow, then waits for the readiness
    /// it needs, or for the loop's next turn.
    ///
    /// From the awaiting task's thread (``runInline(_:polls:)``), `polling` its job: only that job's response is
    /// read, and the answer is whether to look again (its response has not all come). Anything else (the job
    /// ended, a streamed body, readiness other than reading to wait for) is the loop's to go on with.
    @discardableResult
    private func drive(polling polled: RequestJob? = nil) -> Bool {
        var budget = EventLoop.readBudget
        do {
            while true {
                if let polled, job !== polled || (machine.phase != .receivingHead && machine.phase != .receivingBody) {
                    // A streamed body goes on from bytes that may all be in the buffer already: the loop moves them.
                    if job === polled || machine.phase == .streaming { handToLoop(.drive) }
                    return false
                }
                let waitingFor: ByteStreamResult.Interest?
                switch machine.phase {
                case .sending: waitingFor = try send(&budget)
                case .receivingHead, .receivingBody, .streaming: waitingFor = try receive(&budget)
                case .idle, .paused, .closed: return false
                }
                guard let waitingFor else { continue }
                if waitingFor == .readable, budget > 0 {
                    if stream.hasBufferedBytes { continue }
                    if polled != nil { return true }
                }
                if polled != nil {
                    handToLoop(.drive)
                    return false
                }
                // While the request is written, an early response is watched for too (``takeEarlyResponse()``).
                let sending: LoopInterest = machine.phase == .sending ? [.readable, .writable] : .writable
                watch(waitingFor == .readable ? .readable : sending)
                // The budget spent: the loop's next turn goes on, after its timers and other connections.
                if budget <= 0 { handToLoop(.drive) }
                return false
            }
        } catch {
            fail(error)
            return false
        }
    }

    private func watch(_ new: LoopInterest, force: Bool = false) {
        guard isRegistered, force || new != interest else { return }
        if isOffLoop {
            // The registration is the loop's: it works out again what to wait for.
            return handToLoop(.drive)
        }
        do {
            try loop.setInterest(new, for: descriptor)
            interest = new
        } catch {
            fail(error)
        }
    }

    /// Writes the request (as much as the budget allows); once written, waits for the response.
    private func send(_ budget: inout Int) throws -> ByteStreamResult.Interest? {
        guard var writer else { throw ExchangeFailure.closedBeforeResponse(nil) }
        let before = writer.bytesWritten
        let progress: HTTP1RequestWriter.Progress
        do {
            progress = try writer.write(to: stream, budget: EventLoop.writeBudget)
        } catch let failure as ExchangeFailure {
            // A server may answer and close: its answer is in the socket before the reset that failed the write.
            self.writer = writer
            if try takeEarlyResponse() { return nil }
            throw failure
        }
        self.writer = writer
        job?.record.bytesSent += writer.bytesWritten - before
        // Writing a request that fits at once is no progress; a body that waits for room makes progress as it goes.
        if writer.hasWaitedForRoom, writer.bytesWritten > before { idle.lastActivity = loop.now() }
        switch progress {
        case .done:
            job?.record.sendEnd = loop.now()
            run(machine.requestWritten())
            // The response cannot have arrived yet: wait for it rather than try a read that would find nothing.
            return .readable
        case .blocked(let interest):
            // A server may answer before it has read the whole request (a 413) and stop reading.
            return try takeEarlyResponse() ? nil : interest
        case .budgetSpent:
            budget = 0
            return .writable
        }
    }

    /// Reads what the server sent while the request is still being written. Response bytes stop the sending: the
    /// response is read from them on, and the connection is not reused, its request unfinished.
    private func takeEarlyResponse() throws -> Bool {
        guard stream.hasBufferedBytes || stream.isReadableNow else { return false }
        var budget = EventLoop.readBudget
        guard let count = try read(&budget) else { return false }
        if count == 0 { throw ExchangeFailure.closedBeforeResponse(nil) }
        sentAt = loop.now()
        run(machine.earlyResponseArrived())
        return true
    }

    /// Reads into the buffer against `budget`: the byte count (0 at the end of the stream), or nil when nothing is
    /// there now or the budget is spent. A failure before any response byte means the connection closed before a
    /// response; a full buffer is `whenFull`.
    private func read(_ budget: inout Int, whenFull: HTTP1ParseError = .invalidChunkSize) throws -> Int? {
        guard budget > 0 else { return nil }
        guard !reader.isFull else { throw whenFull }
        let count: Int
        do {
            switch try reader.fill(from: stream) {
            case .bytes(let read): count = read
            case .end: return 0
            case .wouldBlock: return nil
            }
        } catch let error as POSIXError {
            if machine.hasResponseBytes { throw NetworkSocket.Failure.system(error) }
            throw ExchangeFailure.closedBeforeResponse(error)
        }
        budget -= count
        idle.lastActivity = loop.now()
        if let job {
            job.record.received(count, at: idle.lastActivity)
        } else {
            pump?.record.received(count, at: idle.lastActivity)
        }
        return count
    }

    /// Reads the response (its head, a buffered body, or a streamed body into its consumer) as far as the bytes and
    /// `budget` go: nil once the machine has moved on, or the readiness to wait for.
    private func receive(_ budget: inout Int) throws -> ByteStreamResult.Interest? {
        let phase = machine.phase
        while machine.phase == phase {
            let event: HTTP1ResponseReader.Event
            switch phase {
            case .receivingHead:
                guard let job else { throw ExchangeFailure.closedBeforeResponse(nil) }
                event = try reader.nextHead(limits: job.limits.head)
            case .receivingBody:
                event = try reader.decodeBody()
            case .streaming:
                guard let pump else { return nil }
                event = try reader.deliver(to: pump)
            default:
                return nil
            }
            switch event {
            case .interimHead:
                // An interim answer (100 Continue) while the request is written: the writing goes on.
                run(machine.informationalHeadParsed())
            case .finalHead(let head):
                guard let job else { throw ExchangeFailure.closedBeforeResponse(nil) }
                polling.answerArrived(after: loop.now() &- sentAt)
                try headArrived(head, job: job)
            case .bodyCompleted(let body):
                run(machine.bodyCompleted(body))
            case .consumerFull:
                run(machine.consumerFull())
            case .needsBytes:
                let whenFull: HTTP1ParseError = phase == .receivingHead ? .headTooLarge : .invalidChunkSize
                guard let count = try read(&budget, whenFull: whenFull) else {
                    if phase == .streaming, let pump { armTimeout(pump.idleTimeout, keepingActivity: true) }
                    return .readable
                }
                let ended = count == 0
                if phase == .receivingHead {
                    run(ended ? machine.endOfStream() : machine.responseBytesArrived())
                } else if ended {
                    run(
                        machine.endOfStream(
                            isDelimitedByClose: reader.isDelimitedByClose(streamingTo: pump),
                            isConfirmed: !stream.isEndUnconfirmed))
                }
            }
        }
        return nil
    }

    private func headArrived(_ head: ResponseHead, job: RequestJob) throws {
        let framing = try head.framing(isHeadRequest: job.isHeadRequest)
        let final = HTTP1ConnectionStateMachine.FinalHead(
            isKeepAlive: head.isKeepAlive, hasAmbiguousFraming: head.hasAmbiguousFraming,
            isSwitchingProtocols: head.status == 101, isStreamed: job.mode.isStreaming)
        switch job.mode {
        case .buffered(let bodyLimit):
            try reader.expectBody(of: head, framing: framing, limits: job.limits.body, bodyLimit: bodyLimit)
        case .streaming(let options):
            pumpGeneration += 1
            pump = try HTTP1BodyPump(
                head: head, framing: framing, options: options, job: job, generation: pumpGeneration, connection: self)
        }
        run(machine.finalHeadParsed(final))
    }

    /// Ends a streamed body with `error`, after the connection closed.
    private func endPump(failing error: any Error) {
        guard let pump else { return }
        self.pump = nil
        pump.end(failing: error, key: key, connection: facts, now: loop.now())
        release(isReusable: false, pool: pump.pool)
    }

    // MARK: Timeouts

    /// Starts (or keeps) the idle timeout: the job fails when no byte moves for `seconds`, counted from `since`
    /// (loop-clock nanoseconds; now when nil).
    private func armTimeout(_ seconds: Double, since: UInt64? = nil, keepingActivity: Bool = false) {
        guard let deadline = idle.arm(seconds, since: since ?? loop.now(), keepingActivity: keepingActivity) else {
            return
        }
        scheduleTimeoutCheck(at: deadline)
    }

    private func scheduleTimeoutCheck(at deadline: UInt64) {
        // A pending check that comes first re-checks then, from the latest activity.
        if let pending = idle.timerDeadline, pending <= deadline { return }
        guard loop.isCurrent, !isOffLoop else {
            // From the task the connection is lent to (``runInline(_:polls:)``): timers are the loop's.
            return handToLoop(.scheduleTimeoutCheck(deadline: deadline))
        }
        if let timer = idle.timer { loop.cancel(timer) }
        idle.timerDeadline = deadline
        idle.timer = loop.schedule(at: deadline) { [weak self] in
            self?.perform(.checkTimeout) { self?.checkTimeout() }
        }
    }

    private func checkTimeout() {
        idle.timer = nil
        idle.timerDeadline = nil
        guard let deadline = idle.deadline, machine.phase != .idle, machine.phase != .closed else { return }
        guard loop.now() >= deadline else { return scheduleTimeoutCheck(at: deadline) }
        run(machine.timedOut())
    }
}
