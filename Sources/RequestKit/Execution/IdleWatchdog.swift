import Foundation

/// Enforces the idle timeout of URLSession transfers on every platform (FoundationNetworking on Linux ignores
/// `timeoutInterval`): a check runs when the timeout could first expire, then again for whatever time is left.
enum IdleWatchdog {
    private static let queue = DispatchQueue(label: "RequestKit.URLSessionTransport.idle")

    /// Starts watching a transfer. `check` runs after `timeout` and returns the seconds still to wait, or nil
    /// when the transfer is over: finished, or expired and failed by `check` itself. A timeout that is not a
    /// positive, finite number means no watching.
    static func watch(timeout: TimeInterval, _ check: @escaping @Sendable () -> TimeInterval?) {
        guard timeout > 0, timeout.isFinite else { return }
        schedule(after: timeout, check)
    }

    private static func schedule(after seconds: TimeInterval, _ check: @escaping @Sendable () -> TimeInterval?) {
        queue.asyncAfter(deadline: .now() + seconds) {
            if let remaining = check() { schedule(after: remaining, check) }
        }
    }

    /// The seconds left before `timeout` passes with no activity since `lastActivity`; zero or less once it has.
    static func remaining(of timeout: TimeInterval, since lastActivity: DispatchTime) -> TimeInterval {
        timeout - Double(DispatchTime.now().uptimeNanoseconds - lastActivity.uptimeNanoseconds) / 1e9
    }

    /// The error a transfer fails with when its idle timeout passes.
    static func timeoutError(_ timeout: TimeInterval) -> RequestError {
        RequestError.timedOut("no data for \(FoundationMapping.seconds(timeout)) s")
    }
}
