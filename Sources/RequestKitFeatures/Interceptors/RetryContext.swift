/// Where a request stands when an interceptor decides about a retry.
///
/// ```swift
/// guard context.previousRetries == 0 else { return .doNotRetry }  // retry at most once
/// ```
public struct RetryContext: Sendable, Hashable {
    /// The attempt that just finished, from 1.
    public let attempt: Int
    /// How many retries this interceptor already asked for during this request.
    public let previousRetries: Int

    /// Creates a context.
    ///
    /// ```swift
    /// let context = RetryContext(attempt: 1, previousRetries: 0)
    /// ```
    public init(attempt: Int, previousRetries: Int) {
        self.attempt = attempt
        self.previousRetries = previousRetries
    }
}
