import RequestKitModel

/// Marks more header or query parameter names as secret for this request, on top of the client's
/// ``SensitiveData``: they are dropped on a redirect to another origin (headers) and printed as `<redacted>` in
/// `cURL`, logs and error descriptions.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/anything")
///     Header.Any(key: "X-Tenant-Secret", value: secret)
///     Sensitive(headers: "X-Tenant-Secret")
/// }
/// ```
public struct Sensitive: RequestComponent {
    /// The header names to treat as secret.
    public let headerNames: [String]
    /// The query parameter names to treat as secret.
    public let queryNames: [String]

    /// Marks header names as secret.
    ///
    /// ```swift
    /// Sensitive(headers: "X-Session", "X-Signature")
    /// ```
    public init(headers: String...) {
        headerNames = headers
        queryNames = []
    }

    /// Marks query parameter names as secret.
    ///
    /// ```swift
    /// Sensitive(queries: "sig")
    /// ```
    public init(queries: String...) {
        headerNames = []
        queryNames = queries
    }

    public func apply(to parts: inout RequestParts) {
        for name in headerNames { parts[option: SensitiveDataKey.self].headerNames.insert(name.lowercased()) }
        for name in queryNames { parts[option: SensitiveDataKey.self].queryNames.insert(name.lowercased()) }
    }
}
