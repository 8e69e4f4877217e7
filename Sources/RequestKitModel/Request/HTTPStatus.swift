/// An HTTP response status: a code and its reason phrase.
///
/// ```swift
/// if response.status == .notFound { … }
/// response.status.isSuccess  // true for 2xx
/// ```
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The three-digit status code.
    public let code: Int

    /// Creates a status from its code.
    ///
    /// ```swift
    /// let status = HTTPStatus(code: 418)
    /// ```
    public init(code: Int) { self.code = code }

    /// Creates a status from an integer literal.
    ///
    /// ```swift
    /// let status: HTTPStatus = 204
    /// ```
    public init(integerLiteral value: Int) { self.code = value }

    /// Whether the code is in 200..<300.
    public var isSuccess: Bool { (200..<300).contains(code) }

    /// Whether the code is a redirection (300..<400).
    public var isRedirection: Bool { (300..<400).contains(code) }

    /// Whether the code reports a client (4xx) or server (5xx) error.
    public var isError: Bool { (400..<600).contains(code) }

    /// The standard reason phrase, or an empty string for an unknown code.
    public var reasonPhrase: String { Self.reasonPhrases[code] ?? "" }

    public var description: String {
        reasonPhrase.isEmpty ? "\(code)" : "\(code) \(reasonPhrase)"
    }

    /// 200 OK.
    public static let ok: Self = 200
    /// 201 Created.
    public static let created: Self = 201
    /// 204 No Content.
    public static let noContent: Self = 204
    /// 304 Not Modified.
    public static let notModified: Self = 304
    /// 400 Bad Request.
    public static let badRequest: Self = 400
    /// 401 Unauthorized.
    public static let unauthorized: Self = 401
    /// 403 Forbidden.
    public static let forbidden: Self = 403
    /// 404 Not Found.
    public static let notFound: Self = 404
    /// 429 Too Many Requests.
    public static let tooManyRequests: Self = 429
    /// 500 Internal Server Error.
    public static let internalServerError: Self = 500
    /// 503 Service Unavailable.
    public static let serviceUnavailable: Self = 503

    private static let reasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created", 202: "Accepted",
        203: "Non-Authoritative Information", 204: "No Content", 205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
        402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
        406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict",
        410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Content",
        425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests",
        431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]
}
