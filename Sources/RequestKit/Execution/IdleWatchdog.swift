import Foundation

/// Enforces the idle timeout of one registry's URLSession transfers on every platform (FoundationNetworking on
/// Linux ignores `timeoutInterval`).
///
/// One timer serves every transfer of the registry: it is armed for the earliest moment a timeout could expire,
/// and when it fires the registry's `sweep` fails the transfers that have been idle too long and says when the
/// next one could expire. Nothing is scheduled per request, so a finished transfer leaves nothing behind (a
/// closure per request kept each finished task alive for the whole timeout).
final class IdleWatchdog: @unchecked Sendable {
    // Safe: `timer` and `deadline` are read and written only while holding `lock`.
    private static let queue = DispatchQueue(label: "RequestKit.URLSessionTransport.idle")
    private let lock = NSLock()
    private var timer: (any DispatchSourceTimer)?
    private var deadline: DispatchTime?
    private let sweep: @Sendable () -> TimeInterval?

    /// A watchdog whose timer runs `sweep`, which returns the seconds until the next check is due, or nil when no
    /// transfer is left to watch.
    init(sweep: @escaping @Sendable () -> TimeInterval?) {
        self.sweep = sweep
    }

    deinit {
        timer?.cancel()
    }

    /// Makes sure a check runs within `timeout` seconds. A timeout that is not a positive, finite number means
    /// no watching.
    func watch(timeout: TimeInterval) {
        guard timeout > 0, timeout.isFinite else { return }
        arm(after: timeout)
    }

    private func arm(after seconds: TimeInterval) {
        let target = DispatchTime.now() + max(seconds, 0.001)
        lock.withLock {
            if let deadline, deadline <= target { return }
            deadline = target
            let timer = self.timer ?? makeTimer()
            timer.schedule(deadline: target, leeway: .milliseconds(5))
        }
    }

    /// With the lock held: the timer, created and started on first use.
    private func makeTimer() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: Self.queue)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.resume()
        self.timer = timer
        return timer
    }

    private func fire() {
        lock.withLock { deadline = nil }
        if let next = sweep() { arm(after: next) }
    }

    /// Whether a transfer with this timeout is watched.
    static func isWatched(_ timeout: TimeInterval) -> Bool { timeout > 0 && timeout.isFinite }

    /// The seconds left before `timeout` passes with no activity since `lastActivity`; zero or less once it has.
    static func remaining(of timeout: TimeInterval, since lastActivity: DispatchTime) -> TimeInterval {
        timeout - Double(DispatchTime.now().uptimeNanoseconds - lastActivity.uptimeNanoseconds) / 1e9
    }

    /// The earlier of two optional waits.
    static func earlier(_ first: TimeInterval?, _ second: TimeInterval) -> TimeInterval {
        first.map { min($0, second) } ?? second
    }

    /// The error a transfer fails with when its idle timeout passes.
    static func timeoutError(_ timeout: TimeInterval) -> RequestError {
        RequestError.timedOut("no data for \(FoundationMapping.seconds(timeout)) s")
    }
}
