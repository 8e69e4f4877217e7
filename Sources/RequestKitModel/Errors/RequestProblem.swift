/// One thing wrong with a request definition, found while building it.
///
/// Building a request collects every problem instead of stopping at the first, so one error can list them
/// all:
///
/// ```swift
/// do {
///     _ = try Request { Url("ftp://example.com"); Header.Any(key: "X-Id", value: "a\r\nb") }.urlRequest()
/// } catch let error as RequestError {
///     for problem in error.problems { print(problem) }
/// }
/// ```
public struct RequestProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is, for matching in code.
    public var kind: Kind
    /// A sentence a person can act on.
    public var message: String

    /// Creates a problem of a kind with a message.
    ///
    /// ```swift
    /// parts.report(RequestProblem(.invalidComponent, "API key is empty"))
    /// ```
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The kinds of request problems: an open set, so custom components can add their own.
    ///
    /// ```swift
    /// extension RequestProblem.Kind { static let missingAPIKey = Self("missingAPIKey") }
    /// ```
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the kind.
        public let name: String

        /// Creates a kind with a stable name.
        ///
        /// ```swift
        /// let kind = RequestProblem.Kind("missingAPIKey")
        /// ```
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// The request has no `Url`.
        public static let missingURL = Self("missingURL")
        /// The request has more than one `Url`.
        public static let multipleURLs = Self("multipleURLs")
        /// A URL could not be parsed, or lacks a host.
        public static let malformedURL = Self("malformedURL")
        /// The URL's scheme is not `http` or `https`.
        public static let unsupportedScheme = Self("unsupportedScheme")
        /// A header name is not an HTTP token.
        public static let invalidHeaderName = Self("invalidHeaderName")
        /// A header value holds CR, LF, NUL or another control character.
        public static let invalidHeaderValue = Self("invalidHeaderValue")
        /// The method is not a valid HTTP token.
        public static let invalidMethod = Self("invalidMethod")
        /// A GET or HEAD request carries a body.
        public static let bodyNotAllowed = Self("bodyNotAllowed")
        /// A body could not be encoded.
        public static let bodyEncodingFailed = Self("bodyEncodingFailed")
        /// Any other invalid component value (a negative timeout, a bad path template, …).
        public static let invalidComponent = Self("invalidComponent")
    }
}

/// A component's value, or the problem that will be reported in its place when the request is built.
///
/// The problem, the rare case, is boxed: a component holding a small value (``Url``'s `URL`) then fits in the
/// inline storage of `any RequestComponent`, and building a request allocates nothing for it.
package enum Checked<Value: Sendable>: Sendable {
    case valid(Value)
    indirect case invalid(RequestProblem)
}
