import RequestKitModel

extension RetryDecision {
    /// Retries after `delay` (at least zero).
    ///
    /// ```swift
    /// return .retry(after: .milliseconds(500))
    /// ```
    public static func retry(after delay: Duration) -> Self { retry(after: Backoff.seconds(delay)) }
}
