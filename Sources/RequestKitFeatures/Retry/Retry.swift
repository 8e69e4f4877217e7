import RequestKitModel

/// Sets the retry policy for this request, replacing the client's.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/status/503")
///     Retry(.exponential(maxAttempts: 3, baseDelay: 0.1))
///     Timeout(10, for: .resource)   // covers every attempt
/// }
/// ```
public struct Retry: RequestComponent {
    /// The policy.
    public let policy: RetryPolicy

    /// Uses `policy` for this request.
    ///
    /// ```swift
    /// Retry(.none)
    /// ```
    public init(_ policy: RetryPolicy) { self.policy = policy }

    public func apply(to parts: inout RequestParts) {
        parts[option: RetryPolicyKey.self] = policy
    }
}

package enum RetryPolicyKey: RequestOptionKey {
    package static let defaultValue = RetryPolicy.none
}
