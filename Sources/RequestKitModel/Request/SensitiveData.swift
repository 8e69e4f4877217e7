import Foundation

/// The names that hold secrets: header names and query parameter names. One list serves every place a secret
/// could leak: redirects to another origin drop the sensitive headers, and `cURL`, ``ConsoleLogger`` and
/// ``RequestError`` descriptions print `<redacted>` instead of their values, of sensitive query parameters, of a
/// password in the URL, and of sensitive members of JSON and form bodies.
///
/// Add your own names on a client, or per request with ``Sensitive``:
///
/// ```swift
/// let client = Client(baseURL: url) { configuration in
///     configuration.sensitiveData.headerNames.insert("x-tenant-secret")
///     configuration.sensitiveData.queryNames.insert("sig")
/// }
/// ```
public struct SensitiveData: Sendable, Hashable {
    /// Header names whose values are secret, lowercased: `authorization`, `proxy-authorization`, `cookie`,
    /// `x-api-key` and `x-auth-token` by default.
    ///
    /// ```swift
    /// sensitive.headerNames.insert("x-session")
    /// ```
    public var headerNames: Set<String>
    /// Query parameter (and JSON or form member) names whose values are secret, lowercased: `api_key`, `key`,
    /// `token`, `access_token`, `password`, `secret` and `signature` by default.
    ///
    /// ```swift
    /// sensitive.queryNames.insert("sig")
    /// ```
    public var queryNames: Set<String>

    /// The default header names.
    public static let defaultHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key", "x-auth-token",
    ]
    /// The default query parameter names.
    public static let defaultQueryNames: Set<String> = [
        "api_key", "key", "token", "access_token", "password", "secret", "signature",
    ]

    /// The defaults, plus any names given (compared case-insensitively).
    ///
    /// ```swift
    /// let sensitive = SensitiveData(headerNames: ["X-Session"], queryNames: ["sig"])
    /// ```
    public init(headerNames: Set<String> = [], queryNames: Set<String> = []) {
        self.headerNames = Self.defaultHeaderNames.union(headerNames.map { $0.lowercased() })
        self.queryNames = Self.defaultQueryNames.union(queryNames.map { $0.lowercased() })
    }

    /// Whether a header's value is secret.
    ///
    /// ```swift
    /// SensitiveData().isSensitive(header: "X-API-Key")  // true
    /// ```
    public func isSensitive(header name: String) -> Bool {
        headerNames.contains(name.lowercased())
    }

    /// Whether a query parameter's (or a JSON or form member's) value is secret.
    ///
    /// ```swift
    /// SensitiveData().isSensitive(query: "access_token")  // true
    /// ```
    public func isSensitive(query name: String) -> Bool {
        queryNames.contains(name.lowercased())
    }

    /// What is printed instead of a secret.
    static let placeholder = "<redacted>"
}

package enum SensitiveDataKey: RequestOptionKey {
    package static let defaultValue = SensitiveData()
}
