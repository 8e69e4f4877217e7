import Foundation

/// The shared state between a ``ResponseBodyStream`` and its continuation: queued chunks, the waiting consumer,
/// and the pause/resume and termination handlers.
package final class ResponseBodyBuffer: @unchecked Sendable {
    // Safe: every mutable property is read and written only while holding `lock`; handlers run outside it.
    private let lock = NSLock()
    private let limit: Int
    private var chunks: [Data] = []
    private var head = 0
    private var bufferedBytes = 0
    private var isFinished = false
    private var failure: RequestError?
    private var terminated = false
    private var isPaused = false
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var demandHandler: (@Sendable () -> Void)?
    private var terminationHandler: (@Sendable () -> Void)?
    /// Run once when the body ends, however it ends, with its failure (nil: it arrived whole): a deadline watching
    /// the body lets go, a monitor's span ends.
    private var endHandlers: [@Sendable (RequestError?) -> Void] = []
    /// Sees what the consumer reads (a cache storing the body as it streams); told once when the body is abandoned.
    private var tap: (any ResponseBodyTap)?
    /// The transport's last attempt as it ended with the body, for ``StreamingResponse/metrics``.
    private var endedAttempt: RequestMetrics.Attempt?

    init(limit: Int) {
        self.limit = limit
    }

    var handlers: (demand: (@Sendable () -> Void)?, termination: (@Sendable () -> Void)?) {
        lock.withLock { (demandHandler, terminationHandler) }
    }

    var isTerminated: Bool { lock.withLock { terminated } }

    /// The transport's attempt as it stood when the body ended; nil before, or from a transport that reports none.
    package var completedAttempt: RequestMetrics.Attempt? {
        get { lock.withLock { endedAttempt } }
        set { lock.withLock { endedAttempt = newValue } }
    }

    /// How many slots the queue holds, read ones included: bounded however the producer and consumer interleave.
    var queueSlots: Int { lock.withLock { chunks.count } }

    func setDemandHandler(_ handler: (@Sendable () -> Void)?) {
        lock.withLock { demandHandler = handler }
    }

    /// Sets the termination handler, running it at once when the consumer has already gone.
    func setTerminationHandler(_ handler: (@Sendable () -> Void)?) {
        let runNow = lock.withLock { () -> Bool in
            terminationHandler = handler
            return terminated && !isFinished
        }
        if runNow { handler?() }
    }

    /// Queues a chunk or hands it to the waiting consumer; returns whether there is room for more.
    func append(_ chunk: Data) -> Bool {
        guard !chunk.isEmpty else { return true }
        let (waiting, hasRoom) = lock.withLock { () -> (CheckedContinuation<Data?, any Error>?, Bool) in
            guard !terminated, !isFinished else { return (nil, true) }
            if let waiter {
                self.waiter = nil
                return (waiter, true)
            }
            chunks.append(chunk)
            bufferedBytes += chunk.count
            if bufferedBytes >= limit { isPaused = true }
            return (nil, !isPaused)
        }
        waiting?.resume(returning: chunk)
        return hasRoom
    }

    /// Adds a handler that runs once when the body ends, with its failure: nil when it arrived whole, the error when
    /// it failed or expired, a cancellation when its consumer went first. It runs at once when the body has ended
    /// already.
    package func addEndHandler(_ handler: @escaping @Sendable (RequestError?) -> Void) {
        let ended = lock.withLock { () -> RequestError?? in
            if isFinished { return .some(failure) }
            if terminated { return .some(Self.consumerGone) }
            endHandlers.append(handler)
            return nil
        }
        if let ended { handler(ended) }
    }

    /// The failure of a body whose consumer went before its end.
    private static var consumerGone: RequestError { RequestError.cancelled(underlyingError: CancellationError()) }

    /// Sets the tap that sees each chunk the consumer reads and how the body ends; abandoned at once when the body
    /// has already failed or its consumer has gone.
    package func setTap(_ tap: any ResponseBodyTap) {
        let isAbandoned = lock.withLock { () -> Bool in
            if terminated || (isFinished && failure != nil) { return true }
            self.tap = tap
            return false
        }
        if isAbandoned { tap.abandoned() }
    }

    /// Takes the tap (with the lock held), so that it hears of the abandonment once.
    private func takeTap() -> (any ResponseBodyTap)? {
        defer { tap = nil }
        return tap
    }

    /// Takes the end handlers (with the lock held), so that each runs once.
    private func takeEndHandlers() -> [@Sendable (RequestError?) -> Void] {
        defer { endHandlers = [] }
        return endHandlers
    }

    func finish(_ error: RequestError?) {
        let (waiting, ended, abandoning) = lock.withLock {
            () -> (
                CheckedContinuation<Data?, any Error>?, [@Sendable (RequestError?) -> Void], (any ResponseBodyTap)?
            ) in
            guard !isFinished else { return (nil, [], nil) }
            isFinished = true
            failure = error
            defer { waiter = nil }
            return (waiter, takeEndHandlers(), error == nil ? nil : takeTap())
        }
        for handler in ended { handler(error) }
        abandoning?.abandoned()
        guard let waiting else { return }
        if let error { waiting.resume(throwing: error) } else { waiting.resume(returning: nil) }
    }

    /// Fails the body before its end (its total deadline passed): what is queued is dropped, the consumer's read
    /// fails with `error`, and the producer is told to stop (``Continuation/onTermination``).
    package func expire(_ error: RequestError) {
        let (waiting, stop, ended, abandoning) = lock.withLock {
            () -> (
                CheckedContinuation<Data?, any Error>?, (@Sendable () -> Void)?, [@Sendable (RequestError?) -> Void],
                (any ResponseBodyTap)?
            ) in
            guard !isFinished, !terminated else { return (nil, nil, [], nil) }
            isFinished = true
            failure = error
            chunks = []
            head = 0
            bufferedBytes = 0
            defer { waiter = nil }
            return (waiter, terminationHandler, takeEndHandlers(), takeTap())
        }
        for handler in ended { handler(error) }
        abandoning?.abandoned()
        waiting?.resume(throwing: error)
        stop?()
    }

    /// The consumer is gone: drop what is queued and tell the producer to stop.
    package func terminate() {
        let (handler, waiting, ended, abandoning) = lock.withLock {
            () -> (
                (@Sendable () -> Void)?, CheckedContinuation<Data?, any Error>?, [@Sendable (RequestError?) -> Void],
                (any ResponseBodyTap)?
            ) in
            guard !terminated else { return (nil, nil, [], nil) }
            terminated = true
            chunks = []
            head = 0
            bufferedBytes = 0
            defer { waiter = nil }
            return (isFinished ? nil : terminationHandler, waiter, takeEndHandlers(), takeTap())
        }
        for handler in ended { handler(Self.consumerGone) }
        abandoning?.abandoned()
        waiting?.resume(throwing: RequestError.cancelled(underlyingError: CancellationError()))
        handler?()
    }

    func next() async throws -> Data? {
        let chunk = try await nextChunk()
        // A tap is rare (a cache storing the body); reading it costs an uncontended lock per chunk.
        guard let tap = lock.withLock({ tap }) else { return chunk }
        if let chunk {
            tap.received(chunk)
        } else {
            lock.withLock { self.tap = nil }
            tap.ended()
        }
        return chunk
    }

    private func nextChunk() async throws -> Data? {
        // A chunk already queued, or the end already known, is taken under the lock alone, with no cancellation
        // handler to register and no continuation to make.
        if !Task.isCancelled, let (outcome, resume) = lock.withLock({ takeReady() }) {
            resume?()
            return try outcome.get()
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                let (outcome, resume) = lock.withLock { takeOrWait(continuation) }
                switch outcome {
                case .some(.success(let chunk)): continuation.resume(returning: chunk)
                case .some(.failure(let error)): continuation.resume(throwing: error)
                case .none: break
                }
                resume?()
            }
        } onCancel: {
            terminate()
        }
    }

    /// With the lock held: the next queued chunk or the end, or nil after parking `continuation` as the waiter;
    /// plus the demand handler to run once the lock is released.
    private func takeOrWait(
        _ continuation: CheckedContinuation<Data?, any Error>
    ) -> (Result<Data?, RequestError>?, (@Sendable () -> Void)?) {
        if let (outcome, resume) = takeReady() { return (outcome, resume) }
        waiter = continuation
        if isPaused {
            isPaused = false
            return (nil, demandHandler)
        }
        return (nil, nil)
    }

    /// With the lock held: the next queued chunk, the end or the failure, when there is one (plus the demand
    /// handler to run once the lock is released); nil when the consumer must wait.
    private func takeReady() -> (Result<Data?, RequestError>, (@Sendable () -> Void)?)? {
        if terminated { return (.failure(RequestError.cancelled(underlyingError: CancellationError())), nil) }
        if head < chunks.count {
            // The slot lets go of the chunk at once: a producer that stays ahead of its consumer may keep the queue
            // from ever emptying, and read chunks must not pile up in it.
            let chunk = chunks[head]
            chunks[head] = Data()
            head += 1
            bufferedBytes -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64, head * 2 >= chunks.count {
                chunks.removeSubrange(0..<head)
                head = 0
            }
            var resume: (@Sendable () -> Void)?
            if isPaused, bufferedBytes < limit / 2 {
                isPaused = false
                resume = demandHandler
            }
            return (.success(chunk), resume)
        }
        if isFinished { return (failure.map { .failure($0) } ?? .success(nil), nil) }
        return nil
    }
}
