import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One thread that waits for many sockets at once: it runs the readiness handlers of the descriptors registered
/// with it, its timers, and work that other threads hand it with ``execute(_:)``. Nothing on it ever blocks on one
/// connection.
///
/// The loop goes round in turns, and each turn is fair: it runs the work handed to it before the turn began (work
/// handed to it meanwhile waits for the next turn), then the handlers of the descriptors that are ready, then the
/// timers that are due. A handler does a bounded amount of work per call (connections read and write at most
/// ``readBudget`` and ``writeBudget`` bytes, then wait for the next turn), so no connection can keep the loop from its
/// timers or from the other connections, however fast its peer sends.
///
/// Everything but ``execute(_:)``, ``isCurrent`` and ``now()`` must be called on the loop's own thread. A loop made
/// with ``init(readiness:clock:)`` has no thread: a test turns it by hand (``turn()``), on a clock it moves itself.
///
/// ```swift
/// let loop = try EventLoop()
/// loop.execute {
///     _ = loop.schedule(at: loop.now() + 1_000_000_000) { print("one second later, on the loop") }
/// }
/// ```
package final class EventLoop: @unchecked Sendable {
    // Safe: `queued`, `isWaitingForReadiness` and `isWakePending` are only touched while holding `lock`;
    // `registrations` and `timers` only on the loop's thread (or by the one thread that turns a loop without one).
    // No access to them is held across a handler, a timer or a queued task (each is copied out first), so they skip
    // the runtime's exclusivity checks.
    private let lock = NSLock()
    @exclusivity(unchecked) private var queued: [() -> Void] = []
    /// Whether the loop waits (or is about to wait) for readiness with nothing queued: work handed to it must wake it.
    private var isWaitingForReadiness = false
    /// Whether a wake-up was signalled since the loop began waiting.
    private var isWakePending = false
    private let readiness: any ReadinessSource
    @exclusivity(unchecked) private var registrations: [Int32: Registration] = [:]
    @exclusivity(unchecked) private var timers = TimerQueue()
    /// The clock the loop's timers and everything on it read.
    package let clock: LoopClock
    /// Whether ``isWaiting`` can be true: a loop turned by hand says so only when its test asks.
    private let reportsWaiting: Bool

    /// The most bytes a connection reads in one readiness call before it lets the loop go on.
    package static let readBudget = 256 * 1024
    /// The most bytes a connection writes in one readiness call before it lets the loop go on.
    package static let writeBudget = 1024 * 1024

    /// The thread-specific slot in which each loop's thread holds its loop, for ``isCurrent``; nil when the
    /// system has no slot left, and then no loop starts.
    private static let currentLoopKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    private struct Registration {
        let handler: any EventLoopHandler
        var interest: LoopInterest
    }

    /// Starts a loop on a thread of its own, waiting on the system's readiness notification.
    ///
    /// - Parameter name: The thread's name.
    /// - Throws: `POSIXError` when the selector cannot be opened or the system refuses the thread.
    package init(name: String = "RequestKit.EventLoop") throws(POSIXError) {
        readiness = try ReadinessSelector()
        clock = .system
        reportsWaiting = true
        guard let key = Self.currentLoopKey else { throw POSIXError(.EAGAIN) }
        try DetachedThread.start(name: name, stackSize: 1 << 20) { [self] in
            pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
            while true { turn(blocking: true) }
        }
    }

    /// A loop without a thread, for tests: it runs only when ``turn()`` is called, learns readiness from
    /// `readiness`, and reads `clock`.
    ///
    /// - Parameter reportsWaiting: Whether ``isWaiting`` is true between turns, as for an idle loop on a thread, so
    ///   that a caller may run a request on an idle connection itself.
    package init(readiness: any ReadinessSource, clock: LoopClock, reportsWaiting: Bool = false) {
        self.readiness = readiness
        self.clock = clock
        self.reportsWaiting = reportsWaiting
        isWaitingForReadiness = reportsWaiting
    }

    /// The loop's clock's time, in nanoseconds.
    @inline(__always)
    package func now() -> UInt64 { clock.now() }

    /// Whether the caller runs on this loop's thread (or in a turn of a loop without one).
    package var isCurrent: Bool {
        guard let key = Self.currentLoopKey else { return false }
        return pthread_getspecific(key) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `task` on the loop's thread, in the loop's next turn. Any thread may call it; the loop is woken only when
    /// it waits (a busy loop finds the work before it waits again).
    package func execute(_ task: @escaping () -> Void) {
        let needsWake: Bool = lock.withLock {
            queued.append(task)
            guard isWaitingForReadiness, !isWakePending else { return false }
            isWakePending = true
            return true
        }
        if needsWake { readiness.wake() }
    }

    /// Whether the loop is waiting for readiness with nothing to do: a caller that can do a step itself saves
    /// waking it.
    var isWaiting: Bool { lock.withLock { isWaitingForReadiness } }

    /// Starts telling `handler` when `descriptor` has the readiness in `interest` (possibly none yet).
    ///
    /// - Throws: `POSIXError` when the system refuses to watch the descriptor.
    package func register(
        _ descriptor: Int32, interest: LoopInterest, handler: any EventLoopHandler
    ) throws(POSIXError) {
        registrations[descriptor] = Registration(handler: handler, interest: [])
        try setInterest(interest, for: descriptor)
    }

    /// Changes the readiness `descriptor` is watched for; empty stops watching until it changes again.
    ///
    /// - Throws: `POSIXError` when the system refuses the change.
    package func setInterest(_ interest: LoopInterest, for descriptor: Int32) throws(POSIXError) {
        guard let old = registrations[descriptor]?.interest, old != interest else { return }
        try readiness.change(descriptor, from: old, to: interest)
        registrations[descriptor]?.interest = interest
    }

    /// Stops watching `descriptor` and forgets its handler; call it before closing the descriptor.
    package func deregister(_ descriptor: Int32) {
        guard let registration = registrations.removeValue(forKey: descriptor) else { return }
        try? readiness.change(descriptor, from: registration.interest, to: [])
    }

    /// The readiness `descriptor` is watched for; nil when it is not registered.
    package func interest(of descriptor: Int32) -> LoopInterest? { registrations[descriptor]?.interest }

    /// Runs `action` on the loop at `deadline` (``now()`` nanoseconds) unless the timer is cancelled first.
    package func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(deadline: deadline, action: action)
        timers.insert(timer)
        return timer
    }

    /// Runs `action` on the loop after `seconds`, clamped to a century.
    package func schedule(after seconds: Double, _ action: @escaping () -> Void) -> LoopTimer {
        schedule(at: clock.deadline(after: seconds), action)
    }

    /// Cancels a timer that has not fired.
    package func cancel(_ timer: LoopTimer) {
        timers.cancel(timer)
    }

    /// One turn of a loop without a thread, on the caller's thread: the work handed to it before, the handlers of
    /// the descriptors its readiness source reports ready, and the timers due on its clock. Never waits.
    ///
    /// - Returns: Whether the turn ran anything.
    @discardableResult
    package func turn() -> Bool {
        guard let key = Self.currentLoopKey else { return false }
        let outer = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(key, outer) }
        return turn(blocking: false)
    }

    /// The time of the next pending timer, if any.
    package func nextTimerDeadline() -> UInt64? { timers.nextDeadline() }

    @discardableResult
    private func turn(blocking: Bool) -> Bool {
        let tasks = takeQueued()
        for task in tasks { task() }
        var wait: UInt64? = 0
        if blocking, let deadline = timers.nextDeadline() {
            let now = clock.now()
            wait = deadline > now ? deadline - now : 0
        } else if blocking {
            wait = nil
        }
        let hasQueued = lock.withLock {
            isWaitingForReadiness = queued.isEmpty && blocking
            isWakePending = false
            return !queued.isEmpty
        }
        var readyCount = 0
        readiness.wait(timeout: hasQueued ? 0 : wait) { descriptor, readable, writable in
            guard let registration = registrations[descriptor], !registration.interest.isEmpty else { return }
            // Awake now: work a handler hands over (a task it resumes) is found before the loop waits again.
            if readyCount == 0, blocking { lock.withLock { isWaitingForReadiness = false } }
            readyCount += 1
            registration.handler.descriptorIsReady(descriptor, readable: readable, writable: writable)
        }
        lock.withLock { isWaitingForReadiness = reportsWaiting && !blocking }
        let due = timers.due(at: clock.now())
        for action in due { action() }
        // Work the handlers and timers handed over (a task they resumed) runs now, rather than after another look
        // at readiness; work that hands over more waits for the next turn.
        let handedOver = takeQueued()
        for task in handedOver { task() }
        return !tasks.isEmpty || readyCount > 0 || !due.isEmpty || !handedOver.isEmpty
    }

    /// Empties the queue of work handed to the loop and returns what it held, in the order it came.
    private func takeQueued() -> [() -> Void] {
        lock.withLock {
            defer { queued = [] }
            return queued
        }
    }
}
