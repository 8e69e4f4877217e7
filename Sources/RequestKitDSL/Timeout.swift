import RequestKitModel

/// Limits how long a request may take.
///
/// `Timeout(30)` is the idle timeout: the longest wait for the next bytes from the server. `Timeout(120,
/// for: .resource)` is a total deadline for the whole exchange. Both are enforced on every platform; when
/// one expires the request fails with a ``RequestError`` of kind ``RequestError/Kind/timedOut``.
///
/// ```swift
/// Timeout(10)
/// Timeout(60, for: .resource)
/// Timeout(5, for: .all)
/// ```
public struct Timeout: RequestComponent {
    /// The limit in seconds.
    public let seconds: Double
    /// Which limit to set.
    public let kind: Kind

    /// Sets a limit in seconds. `.infinity` means no limit; a limit that is not positive (or NaN) is reported
    /// when the request is built. Huge limits are fine: every wait is clamped, never converted with a trap.
    ///
    /// ```swift
    /// Timeout(2.5)
    /// Timeout(.infinity, for: .resource)   // no total deadline
    /// ```
    public init(_ seconds: Double, for kind: Kind = .request) {
        self.seconds = seconds
        self.kind = kind
    }

    public func apply(to parts: inout RequestParts) {
        guard seconds > 0 else {
            parts.report(RequestProblem(.invalidComponent, "a timeout must be a positive number, not \(seconds)"))
            return
        }
        guard seconds.isFinite else {
            if kind != .request { parts.resourceTimeout = nil }
            if kind != .resource { parts.timeout = .infinity }
            return
        }
        switch kind {
        case .request: parts.timeout = seconds
        case .resource: parts.resourceTimeout = seconds
        case .all:
            parts.timeout = seconds
            parts.resourceTimeout = seconds
        }
    }

    /// Which limit a `Timeout` sets.
    public enum Kind: Sendable, Hashable {
        /// The idle timeout: the longest wait for the next bytes.
        case request
        /// The total deadline for the whole exchange.
        case resource
        /// Both, to the same value.
        case all
    }
}
