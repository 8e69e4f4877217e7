import Foundation
import RequestKitModel

/// Enforces the idle timeout of one ``TransferRegistry``'s transfers on every platform (FoundationNetworking on
/// Linux ignores `timeoutInterval` once bytes flow).
///
/// One timer serves every transfer of the registry. It is armed for the earliest moment a timeout could expire;
/// when it fires, `sweep` fails the transfers idle for too long and says how long until the next one could
/// expire. Nothing is scheduled per request and the timer's handler holds the registry weakly, so a finished
/// transfer leaves nothing behind.
///
/// The watchdog's lock is never held while `sweep` runs, and the registry never holds its own lock while it
/// arms the watchdog, so the two locks are never nested.
final class IdleWatchdog: @unchecked Sendable {
    // Safe: `armedDeadline` is read and written only while holding `lock`; `timer` is a constant.
    private let lock = NSLock()
    private var armedDeadline: DispatchTime?
    private let timer: any DispatchSourceTimer

    /// A watchdog whose timer runs on `queue`; it does nothing until ``start(_:)``.
    init(queue: DispatchQueue) {
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    /// Starts the timer, which calls `sweep` each time it fires; `sweep` returns the seconds until the next check
    /// is due, or nil when no transfer is left to watch. Called once, before the first ``watch(timeout:)``.
    func start(_ sweep: @escaping @Sendable () -> TimeInterval?) {
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            lock.withLock { armedDeadline = nil }
            if let next = sweep() { arm(after: next) }
        }
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Makes sure a check runs within `timeout` seconds, for a transfer that has just started.
    func watch(timeout: TimeInterval) {
        guard Self.isWatched(timeout) else { return }
        arm(after: timeout)
    }

    /// Moves the timer earlier when `seconds` from now comes before the check already planned.
    private func arm(after seconds: TimeInterval) {
        let deadline = Self.deadline(after: seconds)
        lock.withLock {
            if let armedDeadline, armedDeadline <= deadline { return }
            armedDeadline = deadline
            timer.schedule(deadline: deadline, leeway: .milliseconds(10))
        }
    }

    /// `seconds` from now, kept between a millisecond and a day so that no value a user gives can trap or
    /// overflow; a longer timeout is simply checked again a day later.
    private static func deadline(after seconds: TimeInterval) -> DispatchTime {
        let bounded = seconds.isNaN ? 86_400 : min(max(seconds, 0.001), 86_400)
        return DispatchTime(uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds + UInt64(bounded * 1e9))
    }

    /// Whether a transfer with this timeout is watched: a positive, finite number of seconds.
    static func isWatched(_ timeout: TimeInterval) -> Bool { timeout > 0 && timeout.isFinite }

    /// The seconds left before `timeout` passes with no activity since `lastActivity`, as of `now`; zero or
    /// less once it has.
    static func remaining(of timeout: TimeInterval, since lastActivity: DispatchTime, now: DispatchTime) -> TimeInterval
    {
        let idle =
            now.uptimeNanoseconds >= lastActivity.uptimeNanoseconds
            ? now.uptimeNanoseconds - lastActivity.uptimeNanoseconds : 0
        return timeout - Double(idle) / 1e9
    }

    /// How long the timer waits at least between two checks while transfers with this shortest timeout run:
    /// a twentieth of it, from 20 ms to 1 s, so short timeouts fire with sub-second accuracy and many busy
    /// transfers do not make the timer spin.
    static func spacing(forShortest timeout: TimeInterval) -> TimeInterval {
        min(max(timeout / 20, 0.02), 1)
    }

    /// The error a transfer fails with when its idle timeout passes.
    static func timeoutError(_ timeout: TimeInterval) -> RequestError {
        RequestError.timedOut("no data for \(FoundationMapping.seconds(timeout)) s")
    }
}
