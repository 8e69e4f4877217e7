/// An HTTP request method: an open set with the standard methods as static members.
///
/// ```swift
/// Method(.post)
/// Method(HTTPMethod("PURGE"))
/// ```
public struct HTTPMethod: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The method as sent on the request line.
    public let rawValue: String

    /// Creates a method. An invalid token is reported when the request is built, never sent.
    ///
    /// ```swift
    /// let purge = HTTPMethod("PURGE")
    /// ```
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal.
    ///
    /// ```swift
    /// let method: HTTPMethod = "PROPFIND"
    /// ```
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// Whether the method is a valid HTTP token (RFC 9110 §5.6.2).
    public var isValid: Bool { HTTPSyntax.isToken(rawValue) }

    /// The method as it is sent: GET, HEAD, POST, PUT, DELETE and CONNECT in capitals however they were written (as
    /// FoundationNetworking's `URLRequest` writes them, on every platform), any other method as written.
    ///
    /// ```swift
    /// HTTPMethod("delete").sentForm  // "DELETE"
    /// HTTPMethod("purge").sentForm   // "purge"
    /// ```
    var sentForm: String {
        if self == .get { return rawValue }
        for method in Self.capitalisedWhenSent where HTTPSyntax.equalsIgnoringCase(rawValue, method.rawValue) {
            return method.rawValue
        }
        return rawValue
    }

    /// The methods ``sentForm`` writes in capitals.
    private static let capitalisedWhenSent: [HTTPMethod] = [.get, .head, .post, .put, .delete, .connect]

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        [.get, .head, .put, .delete, .options, .trace, .query].contains(self)
    }

    /// GET.
    public static let get: Self = "GET"
    /// HEAD.
    public static let head: Self = "HEAD"
    /// POST.
    public static let post: Self = "POST"
    /// PUT.
    public static let put: Self = "PUT"
    /// PATCH.
    public static let patch: Self = "PATCH"
    /// DELETE.
    public static let delete: Self = "DELETE"
    /// OPTIONS.
    public static let options: Self = "OPTIONS"
    /// TRACE.
    public static let trace: Self = "TRACE"
    /// CONNECT.
    public static let connect: Self = "CONNECT"
    /// QUERY: a safe, idempotent request with a body (draft-ietf-httpbis-safe-method-w-body).
    public static let query: Self = "QUERY"

    /// A custom method.
    ///
    /// ```swift
    /// Method(.custom("PURGE"))
    /// ```
    public static func custom(_ name: String) -> Self { Self(name) }
}
