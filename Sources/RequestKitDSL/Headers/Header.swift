import RequestKitModel

/// Header components. Each sets one header; a later header with the same name (ignoring case) replaces an
/// earlier one, unless it is added with `appending: true`.
///
/// Names must be HTTP tokens and values may not hold CR, LF, NUL or other control characters: such a header
/// is reported when the request is built, and never sent.
///
/// ```swift
/// Header.Accept(.json)
/// Header.Authorization(.bearer(token))
/// Header.Any(key: "X-Request-ID", value: id)
/// Header.Any(.requestID, "42")
/// ```
public enum Header {
    /// Any header, by name.
    ///
    /// ```swift
    /// Header.Any(key: "X-Api-Version", value: "2")
    /// Header.Any(key: "Accept-Patch", value: "text/example", appending: true)
    /// ```
    public struct `Any`: RequestComponent {
        /// The header's name.
        public let name: String
        /// The header's value.
        public let value: String
        /// Whether to keep earlier headers of the same name instead of replacing them.
        public let isAppending: Bool

        /// Sets a header by name.
        ///
        /// ```swift
        /// Header.Any(key: "X-Trace", value: "on")
        /// ```
        public init(key: String, value: String, appending: Bool = false) {
            self.name = key
            self.value = value
            self.isAppending = appending
        }

        /// Sets a header by a predefined name.
        ///
        /// ```swift
        /// Header.Any(.requestID, UUID().uuidString)
        /// ```
        public init(_ name: HeaderName, _ value: String, appending: Bool = false) {
            self.init(key: name.rawValue, value: value, appending: appending)
        }

        public func apply(to parts: inout RequestParts) {
            if isAppending { parts.headers.add(name, value) } else { parts.headers.set(name, value) }
        }
    }
}

/// A header name: an open set, so projects can name their own headers once.
///
/// ```swift
/// extension HeaderName { static let apiKey = HeaderName("X-Api-Key") }
/// Header.Any(.apiKey, key)
/// ```
public struct HeaderName: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as sent.
    public let rawValue: String

    /// Creates a header name.
    ///
    /// ```swift
    /// let name = HeaderName("X-Api-Key")
    /// ```
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a header name from a literal.
    ///
    /// ```swift
    /// let name: HeaderName = "X-Api-Key"
    /// ```
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// `X-Request-ID`.
    public static let requestID: Self = "X-Request-ID"
    /// `If-None-Match`.
    public static let ifNoneMatch: Self = "If-None-Match"
    /// `If-Modified-Since`.
    public static let ifModifiedSince: Self = "If-Modified-Since"
    /// `Cookie`.
    public static let cookie: Self = "Cookie"
}
