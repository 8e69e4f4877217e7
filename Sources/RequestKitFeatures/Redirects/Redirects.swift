import RequestKitModel

/// Sets how redirects are handled for this request.
///
/// ```swift
/// Redirects(.doNotFollow)
/// ```
public struct Redirects: RequestComponent {
    /// The policy.
    public let policy: RedirectPolicy

    /// Uses `policy` for this request.
    ///
    /// ```swift
    /// Redirects(.follow(limit: 2))
    /// ```
    public init(_ policy: RedirectPolicy) { self.policy = policy }

    public func apply(to parts: inout RequestParts) {
        parts[option: RedirectPolicyKey.self] = policy
    }
}

package enum RedirectPolicyKey: RequestOptionKey {
    package static let defaultValue: RedirectPolicy? = nil
}
