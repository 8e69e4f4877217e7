/// Whether, and after how long, to send a request again.
///
/// ```swift
/// return .retry                    // at once
/// return .retry(after: 0.5)        // in half a second
/// return .doNotRetry
/// ```
public struct RetryDecision: Sendable, Hashable, CustomStringConvertible {
    /// The delay before the retry in seconds, or nil for no retry.
    public let delay: Double?

    /// Retries after `seconds` (at least zero).
    ///
    /// ```swift
    /// .retry(after: 2)
    /// ```
    public static func retry(after seconds: Double) -> Self { Self(delay: max(0, seconds)) }

    /// Retries at once.
    public static let retry = Self(delay: 0)

    /// Passes the outcome on.
    public static let doNotRetry = Self(delay: nil)

    /// Whether this decision retries.
    public var isRetry: Bool { delay != nil }

    public var description: String { delay.map { "retry after \($0) s" } ?? "do not retry" }
}
