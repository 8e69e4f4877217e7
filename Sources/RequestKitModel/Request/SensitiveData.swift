import Foundation

/// The names that hold secrets: header names, query parameter names, and the words that make any name secret. One
/// list serves every place a secret could leak: redirects to another origin drop the sensitive headers, and `cURL`,
/// ``ConsoleLogger`` and ``RequestError`` descriptions print `<redacted>` instead of their values, of sensitive query
/// parameters, of a password in the URL, and of sensitive members of JSON, form and multipart bodies.
///
/// A name is secret when it is one of ``headerNames`` (for a header) or ``queryNames`` (for a query parameter or a
/// body member), or when one of its words is one of ``secretWords``: `token`, `secret`, `password`, `key`, `auth`
/// and a few more. A name's words are split at every character that is not a letter or a digit and where a word in
/// camel case starts, so `X-Vendor-Token`, `refresh_token`, `id_token`, `client_secret`, `clientSecret`, `APIKey`
/// and `X-Auth-User` are secret, and `author`, `max_tokens` and `keyboard` are not.
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
    /// The words, lowercased, that make any header, query parameter or body member name holding one of them secret
    /// (``defaultSecretWords`` by default); empty to go by the names alone.
    ///
    /// ```swift
    /// sensitive.secretWords.insert("session")   // X-Session-ID, session_id
    /// ```
    public var secretWords: Set<String> = Self.defaultSecretWords

    /// The default secret words: `token`, `secret`, `password`, `passwd`, `passphrase`, `key`, `apikey`, `auth`,
    /// `authorization`, `credential`, `credentials`, `signature` and `cookie`.
    public static let defaultSecretWords: Set<String> = [
        "token", "secret", "password", "passwd", "passphrase", "key", "apikey", "auth", "authorization", "credential",
        "credentials", "signature", "cookie",
    ]

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
        headerNames.contains(name.lowercased()) || hasSecretWord(name)
    }

    /// Whether a query parameter's (or a JSON or form member's) value is secret.
    ///
    /// ```swift
    /// SensitiveData().isSensitive(query: "access_token")  // true
    /// ```
    public func isSensitive(query name: String) -> Bool {
        queryNames.contains(name.lowercased()) || hasSecretWord(name)
    }

    /// Whether one of `name`'s words is one of ``secretWords``: words end at every byte that is not an ASCII letter
    /// or digit (a byte of a non-ASCII character belongs to its word), before an upper-case letter that follows a
    /// lower-case letter or a digit, and before the last upper-case letter of a run followed by a lower-case one
    /// (`APIKey` is `api` and `key`).
    ///
    /// ```swift
    /// SensitiveData().hasSecretWord("X-Vendor-Token")  // true
    /// SensitiveData().hasSecretWord("author")          // false
    /// ```
    public func hasSecretWord(_ name: String) -> Bool {
        guard !secretWords.isEmpty else { return false }
        let bytes = Array(name.utf8)
        var word: [UInt8] = []
        func endsSecretWord() -> Bool {
            defer { word.removeAll(keepingCapacity: true) }
            return !word.isEmpty && secretWords.contains(String(decoding: word, as: UTF8.self))
        }
        for (index, byte) in bytes.enumerated() {
            let isUpper = Self.isUpper(byte)
            guard isUpper || Self.isLower(byte) || Self.isDigit(byte) || byte >= 0x80 else {
                if endsSecretWord() { return true }
                continue
            }
            if isUpper, !word.isEmpty {
                let previous = bytes[index - 1]
                let followsLower = Self.isLower(previous) || Self.isDigit(previous)
                let endsRun = Self.isUpper(previous) && index + 1 < bytes.count && Self.isLower(bytes[index + 1])
                if followsLower || endsRun, endsSecretWord() { return true }
            }
            word.append(isUpper ? byte + 32 : byte)
        }
        return endsSecretWord()
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// What is printed instead of a secret.
    package static let placeholder = "<redacted>"
}

package enum SensitiveDataKey: RequestOptionKey {
    package static let defaultValue = SensitiveData()
}
