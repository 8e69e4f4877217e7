/// A connection its event loop owns and may lend to an awaiting task (``ConnectionOwnership``): every entry point
/// runs as one of its `Step`s on the loop, at once when the loop holds it, or later, in order, when it was lent.
/// Jobs a step ends are resumed after the connection is out of its owner's hands.
///
/// ```swift
/// func cancel(_ job: RequestJob) {
///     perform(.cancel(job)) { cancelJob(job) }    // on the loop's thread
/// }
/// func runInline(_ job: RequestJob) -> Bool {
///     lent { startIfIdle(job) }                    // on the awaiting task's thread
/// }
/// ```
protocol LoopOwnedConnection: AnyObject {
    /// What the loop may have to keep for later: an entry point and its arguments.
    associatedtype Step

    /// The loop that owns the connection.
    var loop: EventLoop { get }
    /// Who holds the connection now, the steps left while it was lent, and the jobs ended.
    var ownership: ConnectionOwnership<Step> { get }
    /// Runs `step`, the connection held.
    func handle(_ step: Step)
}

extension LoopOwnedConnection {
    /// Runs `body` on the loop (the caller's thread): at once, after any steps left while the connection was lent,
    /// unless it is lent now, when `step` (what `body` does) waits for the connection to come back.
    @inline(__always)
    func perform(_ step: @autoclosure () -> Step, _ body: () -> Void) {
        guard ownership.enterLoop() else { return ownership.deferred.append(step()) }
        if !ownership.deferred.isEmpty { runDeferredSteps() }
        body()
        let ended = ownership.finished.take()
        ownership.leaveLoop()
        ended.resume()
    }

    /// Runs `step` on the loop (the caller's thread), or keeps it while the connection is lent.
    func perform(_ step: Step) {
        perform(step) { handle(step) }
    }

    /// Hands `step` to the loop, from any thread.
    func handToLoop(_ step: Step) {
        loop.execute { [self] in perform(step) }
    }

    /// Ends `job` with `outcome` once the connection is out of its owner's hands: its task, resumed, may start its
    /// next request on this connection at once.
    func finish(_ job: RequestJob, _ outcome: RequestJob.Outcome) {
        ownership.finished.append(job, outcome)
    }

    /// Runs `body` on the calling thread (an awaiting task's) with the connection lent to it, when the loop can lend
    /// it: `body`'s answer, or false when it could not be lent. Steps the loop left meanwhile are handed back to the
    /// loop, then the jobs `body` ended are resumed.
    func lent(_ body: () -> Bool) -> Bool {
        guard ownership.lend() else { return false }
        let result = body()
        let ended = ownership.finished.take()
        if ownership.giveBack() { loop.execute { [self] in takeUpDeferredSteps() } }
        ended.resume()
        return result
    }

    /// The loop's step after a task gave the connection back with steps left: it runs them (nobody can borrow the
    /// connection until it has).
    private func takeUpDeferredSteps() {
        guard ownership.enterLoop() else { return }
        runDeferredSteps()
        let ended = ownership.finished.take()
        ownership.leaveLoop()
        ended.resume()
    }

    /// Runs the steps left while the connection was lent, in order.
    private func runDeferredSteps() {
        let steps = ownership.deferred
        ownership.deferred = []
        for step in steps { handle(step) }
    }
}
