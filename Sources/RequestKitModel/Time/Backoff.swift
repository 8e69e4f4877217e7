import Foundation

/// How long polling waits after failures: exponential growth from the normal interval, capped, with jitter.
///
/// After `n` failures in a row the wait is `interval × multiplierⁿ`, at most ``maximum`` (but never less than
/// the interval), then moved up or down by a random fraction of at most ``jitter``. A success brings the wait
/// back to the normal interval.
///
/// ```swift
/// request.poll(every: .seconds(10), backoff: .exponential(multiplier: 2, maximum: .seconds(120)))
/// request.poll(every: .seconds(10), backoff: .none)
/// ```
public struct Backoff: Sendable, Hashable {
    /// The factor the wait grows by with each failure in a row.
    public var multiplier: Double
    /// The longest wait.
    public var maximum: Duration
    /// The largest random change, as a fraction of the wait (0.1 is ±10 %); 0 for none.
    public var jitter: Double

    /// Creates a backoff.
    ///
    /// ```swift
    /// let backoff = Backoff(multiplier: 3, maximum: .seconds(60), jitter: 0)
    /// ```
    /// - Parameters:
    ///   - multiplier: The growth factor per failure; values below 1 count as 1.
    ///   - maximum: The longest wait.
    ///   - jitter: The largest random change as a fraction of the wait, clamped to 0...1.
    public init(multiplier: Double = 2, maximum: Duration = .seconds(300), jitter: Double = 0.1) {
        self.multiplier = max(1, multiplier)
        self.maximum = maximum
        self.jitter = min(1, max(0, jitter))
    }

    /// Exponential backoff: the default for polling doubles the wait, up to 5 minutes, with ±10 % jitter.
    ///
    /// ```swift
    /// request.poll(every: .seconds(5), backoff: .exponential(maximum: .seconds(60)))
    /// ```
    public static func exponential(
        multiplier: Double = 2, maximum: Duration = .seconds(300), jitter: Double = 0.1
    ) -> Backoff {
        Backoff(multiplier: multiplier, maximum: maximum, jitter: jitter)
    }

    /// No backoff: failures are retried at the normal interval.
    ///
    /// ```swift
    /// request.poll(every: .seconds(1), backoff: .none)
    /// ```
    public static let none = Backoff(multiplier: 1, maximum: .zero, jitter: 0)

    /// The wait after `failures` failures in a row.
    ///
    /// ```swift
    /// Backoff(multiplier: 2, jitter: 0).delay(afterFailures: 3, interval: .seconds(1))  // 8 seconds
    /// ```
    /// - Parameters:
    ///   - failures: The number of failures in a row; 0 gives the interval.
    ///   - interval: The normal polling interval.
    /// - Returns: The wait before the next request.
    public func delay(afterFailures failures: Int, interval: Duration) -> Duration {
        let base = Self.seconds(interval)
        guard failures > 0, base > 0 else { return interval }
        let grown = base * Foundation.pow(multiplier, Double(min(failures, 64)))
        let capped = min(grown, max(Self.seconds(maximum), base))
        let jittered = jitter > 0 ? capped * (1 + jitter * Double.random(in: -1...1)) : capped
        return .seconds(max(0, jittered))
    }

    /// A duration in seconds.
    package static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

}
