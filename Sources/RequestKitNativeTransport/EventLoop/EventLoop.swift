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
/// Everything but ``execute(_:)`` and ``isCurrent`` must be called on the loop's own thread.
///
/// ```swift
/// let loop = try EventLoop()
/// loop.execute {
///     _ = loop.schedule(at: EventLoop.now() + 1_000_000_000) { print("one second later, on the loop") }
/// }
/// ```
package final class EventLoop: @unchecked Sendable {
    // Safe: `queued`, `isWaitingForReadiness` and `isWakePending` are only touched while holding `lock`;
    // `registrations` and `timers` only on the loop's thread. No access to them is held across a handler, a timer or
    // a queued task (each is copied out first), so they skip the runtime's exclusivity checks.
    private let lock = NSLock()
    @exclusivity(unchecked) private var queued: [() -> Void] = []
    /// Whether the loop waits (or is about to wait) for readiness with nothing queued: work handed to it must wake it.
    private var isWaitingForReadiness = false
    /// Whether a wake-up was signalled since the loop began waiting.
    private var isWakePending = false
    private let selector: ReadinessSelector
    @exclusivity(unchecked) private var registrations: [Int32: Registration] = [:]
    @exclusivity(unchecked) private var timers = TimerQueue()

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

    /// Starts a loop on a thread of its own.
    ///
    /// - Parameter name: The thread's name.
    /// - Throws: `POSIXError` when the selector cannot be opened or the system refuses the thread.
    package init(name: String = "RequestKit.EventLoop") throws(POSIXError) {
        selector = try ReadinessSelector()
        guard let key = Self.currentLoopKey else { throw POSIXError(.EAGAIN) }
        try DetachedThread.start(name: name, stackSize: 1 << 20) { [self] in
            pthread_setspecific(key, Unmanaged.passUnretained(self).toOpaque())
            run()
        }
    }

    /// Monotonic nanoseconds.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the caller runs on this loop's thread.
    package var isCurrent: Bool {
        guard let key = Self.currentLoopKey else { return false }
        return pthread_getspecific(key) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Runs `task` on the loop's thread, after the work already handed to it. Any thread may call it; the loop is
    /// woken only when it waits (a busy loop finds the work before it waits again).
    package func execute(_ task: @escaping () -> Void) {
        let needsWake: Bool = lock.withLock {
            queued.append(task)
            guard isWaitingForReadiness, !isWakePending else { return false }
            isWakePending = true
            return true
        }
        if needsWake { selector.wake() }
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
        try selector.change(descriptor, from: old, to: interest)
        registrations[descriptor]?.interest = interest
    }

    /// Stops watching `descriptor` and forgets its handler; call it before closing the descriptor.
    package func deregister(_ descriptor: Int32) {
        guard let registration = registrations.removeValue(forKey: descriptor) else { return }
        try? selector.change(descriptor, from: registration.interest, to: [])
    }

    /// Runs `action` on the loop at `deadline` (``now()`` nanoseconds) unless the timer is cancelled first.
    package func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> LoopTimer {
        let timer = LoopTimer(deadline: deadline, action: action)
        timers.insert(timer)
        return timer
    }

    /// Runs `action` on the loop after `seconds`, clamped to a century.
    package func schedule(after seconds: Double, _ action: @escaping () -> Void) -> LoopTimer {
        schedule(at: Self.deadline(after: seconds), action)
    }

    /// Cancels a timer that has not fired.
    package func cancel(_ timer: LoopTimer) {
        timers.cancel(timer)
    }

    /// The ``now()`` nanoseconds `seconds` from now, clamped to a century (a negative or NaN duration is now).
    static func deadline(after seconds: Double) -> UInt64 {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 3.15e9)
        return now() &+ UInt64(clamped * 1e9)
    }

    private func run() {
        while true {
            runQueued()
            let wait: UInt64?
            if let deadline = timers.nextDeadline() {
                let now = Self.now()
                wait = deadline > now ? deadline - now : 0
            } else {
                wait = nil
            }
            let hasQueued = lock.withLock {
                isWaitingForReadiness = queued.isEmpty
                isWakePending = false
                return !queued.isEmpty
            }
            selector.wait(timeout: hasQueued ? 0 : wait) { descriptor, readable, writable in
                guard let registration = registrations[descriptor], !registration.interest.isEmpty else { return }
                registration.handler.descriptorIsReady(descriptor, readable: readable, writable: writable)
            }
            lock.withLock { isWaitingForReadiness = false }
            for action in timers.due(at: Self.now()) { action() }
        }
    }

    private func runQueued() {
        while true {
            let tasks: [() -> Void] = lock.withLock {
                defer { queued = [] }
                return queued
            }
            if tasks.isEmpty { return }
            for task in tasks { task() }
        }
    }
}
