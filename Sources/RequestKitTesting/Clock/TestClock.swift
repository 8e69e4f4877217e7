import Foundation
import RequestKit

/// A clock that moves only when a test says so, for testing code that waits: retries and `Retry-After`, polling
/// and `update(every:)`, event-stream reconnection delays and total deadlines, in RequestKit or in your own code.
///
/// Code sleeping on a `TestClock` is suspended until the test calls ``advance(by:)`` (or ``advance(to:)`` or
/// ``run(maxSteps:)``) past its deadline; no real time passes. Hand it to RequestKit with `UseClock(clock)` on a request
/// or `configuration.clock = RequestClock(clock)` on a client. Before advancing, wait until the code under test
/// has reached its sleep with ``waitForSleepers(count:timeout:)``, so the advance cannot come first:
///
/// ```swift
/// let clock = TestClock()
/// let server = try TestServer()
/// defer { server.stop() }
/// let polls = Task {
///     var statuses: [Int] = []
///     for await result in Request({
///         Url(server.url("/anything"))
///         UseClock(clock)
///     }).poll(every: .seconds(60), maxCount: 3) {
///         statuses.append(result.response?.statusCode ?? 0)
///     }
///     return statuses
/// }
/// for _ in 1...2 {
///     await clock.waitForSleepers(count: 1)   // a result arrived; the poller waits a minute
///     await clock.advance(by: .seconds(60))
/// }
/// #expect(await polls.value == [200, 200, 200])
/// ```
///
/// It is a `Clock`, so it also drives your own `try await clock.sleep(for:)` calls.
public final class TestClock: Clock, Sendable {
    /// A point in time on a ``TestClock``: the time since the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock was made.
        public var offset: Duration

        /// Creates an instant at `offset` from the clock's start.
        ///
        /// ```swift
        /// let later = TestClock.Instant(offset: .seconds(5))
        /// ```
        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Waiter {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var cancelledSleepers: Set<Int> = []
        var waiters: [Int: Waiter] = [:]
        var finishedWaiters: Set<Int> = []
        var sleepCount = 0

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        /// Removes and returns the waiters that `sleepers.count` now satisfies.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = waiters.filter { $0.value.count <= sleepers.count }
            for id in ready.keys {
                waiters[id] = nil
                finishedWaiters.insert(id)
            }
            return ready.values.map(\.continuation)
        }
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero.
    ///
    /// ```swift
    /// let clock = TestClock()
    /// ```
    public init() {}

    /// The current instant: moved only by ``advance(by:)``, ``advance(to:)`` and ``run(maxSteps:)``.
    ///
    /// ```swift
    /// await clock.advance(by: .seconds(3))
    /// #expect(clock.now.offset == .seconds(3))
    /// ```
    public var now: Instant { state.withLock { $0.now } }

    /// The smallest step: none, the clock is exact.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on the clock now.
    ///
    /// ```swift
    /// #expect(clock.sleeperCount == 0)   // nothing is waiting
    /// ```
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// How many sleeps have started on the clock in all, including those already over.
    ///
    /// ```swift
    /// #expect(clock.sleepCount == 2)   // two retries waited
    /// ```
    public var sleepCount: Int { state.withLock { $0.sleepCount } }

    /// How long each sleeping task still has to wait, shortest first.
    ///
    /// ```swift
    /// await clock.waitForSleepers(count: 1)
    /// #expect(clock.pendingWaits == [.seconds(2)])   // the Retry-After the server sent
    /// ```
    public var pendingWaits: [Duration] {
        state.withLock { state in state.sleepers.values.map { state.now.duration(to: $0.deadline) }.sorted() }
    }

    /// Suspends until the clock reaches `deadline`, or the task is cancelled.
    ///
    /// ```swift
    /// try await clock.sleep(until: clock.now.advanced(by: .seconds(1)), tolerance: nil)
    /// ```
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: (resumeNow: Result<Void, any Error>?, waiters: [CheckedContinuation<Void, Never>]) =
                    state.withLock { state in
                        state.sleepCount += 1
                        if state.cancelledSleepers.remove(id) != nil { return (.failure(CancellationError()), []) }
                        if deadline <= state.now { return (.success(()), []) }
                        state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                        return (nil, state.satisfiedWaiters())
                    }
                if let resumeNow = outcome.resumeNow { continuation.resume(with: resumeNow) }
                for waiter in outcome.waiters { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledSleepers.insert(id)
                    return Sleeper?.none
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, waking every sleeper whose deadline it passes, in deadline order.
    ///
    /// ```swift
    /// await clock.advance(by: .seconds(30))
    /// ```
    /// - Parameter duration: How far to move; a negative duration does nothing.
    public func advance(by duration: Duration) async {
        await advance(to: now.advanced(by: max(duration, .zero)))
    }

    /// Moves the clock forward to `deadline`, waking every sleeper on the way in deadline order and giving each
    /// woken task a chance to run (and perhaps to sleep again) before moving on.
    ///
    /// ```swift
    /// await clock.advance(to: TestClock.Instant(offset: .seconds(10)))
    /// ```
    /// - Parameter deadline: Where to move; an instant in the past does nothing.
    public func advance(to deadline: Instant) async {
        while true {
            let due: [CheckedContinuation<Void, any Error>]? = state.withLock { state in
                let pending = state.sleepers.filter { $0.value.deadline <= deadline }
                guard let earliest = pending.values.map(\.deadline).min() else {
                    state.now = max(state.now, deadline)
                    return nil
                }
                state.now = max(state.now, earliest)
                let now = state.now
                let ready = pending.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
                for (id, _) in ready { state.sleepers[id] = nil }
                return ready.map(\.value.continuation)
            }
            guard let due else { break }
            for continuation in due { continuation.resume() }
            await Self.letOthersRun()
        }
        await Self.letOthersRun()
    }

    /// Advances to the deadline of every pending sleeper, again and again, until none is left (at most
    /// `maxSteps` times, for code that sleeps forever in a loop).
    ///
    /// ```swift
    /// await clock.run()
    /// ```
    /// - Parameter maxSteps: The most advances to make.
    public func run(maxSteps: Int = 10_000) async {
        for _ in 0..<maxSteps {
            guard let latest = state.withLock({ $0.sleepers.values.map(\.deadline).max() }) else { return }
            await advance(to: latest)
        }
    }

    /// Waits until a task sleeps on the clock, then moves the clock to the earliest deadline, waking that task.
    ///
    /// The usual step of a test that drives a retry or polling loop: it returns how long the woken task had to
    /// wait, so the test can assert the delays exactly.
    ///
    /// ```swift
    /// let first = await clock.advanceToNextSleeper()    // .seconds(1): the first backoff
    /// let second = await clock.advanceToNextSleeper()   // .seconds(2)
    /// ```
    /// - Parameter timeout: The longest real time to wait for a sleeper.
    /// - Returns: The wait that was skipped, or nil when nothing slept within `timeout`.
    @discardableResult
    public func advanceToNextSleeper(timeout: Duration = .seconds(60)) async -> Duration? {
        guard await waitForSleepers(count: 1, timeout: timeout), let wait = pendingWaits.first else { return nil }
        await advance(by: wait)
        return wait
    }

    /// Waits, in real time, until at least `count` tasks are sleeping on the clock: the code under test has
    /// reached the wait that the test is about to advance past.
    ///
    /// ```swift
    /// await clock.waitForSleepers(count: 1)
    /// await clock.advance(by: .seconds(5))
    /// ```
    /// - Parameters:
    ///   - count: The number of sleepers to wait for.
    ///   - timeout: The longest real time to wait, so a test whose code never sleeps fails instead of hanging.
    /// - Returns: `true` when `count` sleepers were there in time.
    @discardableResult
    public func waitForSleepers(count: Int = 1, timeout: Duration = .seconds(60)) async -> Bool {
        let id = state.withLock { $0.makeID() }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            self?.finishWaiter(id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.finishedWaiters.contains(id) || state.sleepers.count >= count { return true }
                    state.waiters[id] = Waiter(count: count, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            finishWaiter(id)
        }
        state.withLock { _ = $0.finishedWaiters.remove(id) }
        return sleeperCount >= count
    }

    /// Ends one waiter early (timed out or cancelled).
    private func finishWaiter(_ id: Int) {
        let waiter = state.withLock { state in
            state.finishedWaiters.insert(id)
            return state.waiters.removeValue(forKey: id)
        }
        waiter?.continuation.resume()
    }

    /// Gives tasks woken by an advance a chance to run before the clock moves on.
    private static func letOthersRun() async {
        for _ in 0..<20 { await Task.yield() }
    }
}
