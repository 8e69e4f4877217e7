import RequestKitModel

extension RetryPolicy {
    /// Retries with exponential backoff and jitter, with the delays given as `Duration`s.
    ///
    /// ```swift
    /// Retry(.exponential(maxAttempts: 5, baseDelay: .milliseconds(100), maximumDelay: .seconds(5)))
    /// ```
    /// - Parameters:
    ///   - maxAttempts: The most attempts in all, the first included.
    ///   - baseDelay: The delay before the first retry, before jitter.
    ///   - multiplier: The factor each further retry multiplies the delay by.
    ///   - maximumDelay: The longest wait between attempts, `Retry-After` included.
    ///   - jitter: Whether delays are randomised between half and the full computed delay.
    /// - Returns: The policy.
    public static func exponential(
        maxAttempts: Int = 3, baseDelay: Duration, multiplier: Double = 2, maximumDelay: Duration = .seconds(30),
        jitter: Bool = true
    ) -> RetryPolicy {
        exponential(
            maxAttempts: maxAttempts, baseDelay: Backoff.seconds(baseDelay), multiplier: multiplier,
            maximumDelay: Backoff.seconds(maximumDelay), jitter: jitter)
    }
}
