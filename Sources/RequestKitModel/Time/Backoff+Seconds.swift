extension Backoff {
    /// Exponential backoff with the longest wait in seconds.
    ///
    /// ```swift
    /// request.poll(every: 5, backoff: .exponential(maximum: 60))
    /// ```
    /// - Parameters:
    ///   - multiplier: The growth factor per failure; values below 1 count as 1.
    ///   - seconds: The longest wait, in seconds; a negative or non-finite value counts as 0.
    ///   - jitter: The largest random change, as a fraction of the wait.
    /// - Returns: The backoff.
    public static func exponential(multiplier: Double = 2, maximum seconds: Double, jitter: Double = 0.1) -> Backoff {
        exponential(multiplier: multiplier, maximum: .seconds(seconds.isFinite ? max(0, seconds) : 0), jitter: jitter)
    }
}
