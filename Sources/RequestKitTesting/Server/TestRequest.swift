import Foundation

/// One HTTP request as the ``TestServer`` received it, kept byte-exact where it matters.
///
/// The path and query are the raw, still percent-encoded text of the request target; `queryItems` is the decoded
/// view. Headers keep the order and spelling the client used.
///
/// ```swift
/// server.route("/echo") { request in
///     .text("\(request.method) \(request.path) \(request.header("accept") ?? "-")")
/// }
/// ```
public struct TestRequest: Sendable {
    /// The request method, exactly as sent (for example `GET`).
    ///
    /// ```swift
    /// #expect(server.requests.last?.method == "POST")
    /// ```
    public var method: String
    /// The raw request target from the request line, such as `/search?q=a%20b`.
    ///
    /// ```swift
    /// #expect(server.requests.last?.target == "/search?q=a%20b")
    /// ```
    public var target: String
    /// The raw, undecoded path part of the target (for an absolute-form target, the path after the authority).
    ///
    /// ```swift
    /// #expect(server.requests.last?.path == "/files/a%2Fb")
    /// ```
    public var path: String
    /// The raw query string after `?`, or `nil` when the target has no `?`.
    ///
    /// ```swift
    /// #expect(server.requests.last?.query == "q=a%20b&flag")
    /// ```
    public var query: String?
    /// The header fields in the order received, with names spelled as received.
    ///
    /// ```swift
    /// #expect(server.requests.last?.headers.map(\.name) == ["Host", "Accept"])
    /// ```
    public var headers: [(name: String, value: String)]
    /// The trailer fields of a chunked request body, in the order received.
    ///
    /// ```swift
    /// #expect(server.requests.last?.trailers.first?.name == "X-Checksum")
    /// ```
    public var trailers: [(name: String, value: String)]
    /// The request body after removing any chunked framing.
    ///
    /// ```swift
    /// #expect(server.requests.last?.body == Data("{}".utf8))
    /// ```
    public var body: Data
    /// The protocol version from the request line, such as `HTTP/1.1`.
    ///
    /// ```swift
    /// #expect(server.requests.last?.httpVersion == "HTTP/1.1")
    /// ```
    public var httpVersion: String
    /// The values captured by `{name}` segments of the custom route that matched, if any.
    ///
    /// ```swift
    /// server.route("/users/{id}") { request in .text(request.pathParameters["id"] ?? "") }
    /// ```
    public var pathParameters: [String: String]
    /// A number identifying the TCP connection that carried the request, unique within one server.
    ///
    /// Two requests with the same `connectionID` travelled on the same kept-alive connection.
    ///
    /// ```swift
    /// #expect(Set(server.requests.map(\.connectionID)).count == 1)  // one reused connection
    /// ```
    public var connectionID: Int
    /// When the request head arrived, on the continuous clock; useful for measuring retry back-off.
    ///
    /// ```swift
    /// let times = server.requests.map(\.receivedAt)
    /// #expect(times[1] - times[0] >= .milliseconds(100))
    /// ```
    public var receivedAt: ContinuousClock.Instant

    /// Creates a request value, for example to unit-test a route handler without a socket.
    ///
    /// ```swift
    /// let request = TestRequest(method: "GET", target: "/a?b=1", headers: [("Host", "localhost")])
    /// ```
    public init(
        method: String,
        target: String,
        headers: [(name: String, value: String)] = [],
        body: Data = Data(),
        httpVersion: String = "HTTP/1.1",
        trailers: [(name: String, value: String)] = [],
        connectionID: Int = 0,
        receivedAt: ContinuousClock.Instant = .now
    ) {
        self.method = method
        self.target = target
        let (path, query) = Self.split(target: target)
        self.path = path
        self.query = query
        self.headers = headers
        self.trailers = trailers
        self.body = body
        self.httpVersion = httpVersion
        self.pathParameters = [:]
        self.connectionID = connectionID
        self.receivedAt = receivedAt
    }

    /// The query items, percent-decoded, in order; `+` decodes to a space as in HTML forms.
    ///
    /// A bare key such as `flag` in `?flag&a=1` has a `nil` value.
    ///
    /// ```swift
    /// // target "/search?q=a%20b&flag"
    /// request.queryItems  // [(name: "q", value: "a b"), (name: "flag", value: nil)]
    /// ```
    public var queryItems: [(name: String, value: String?)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "=") else {
                return (name: Self.formDecode(pair), value: nil)
            }
            return (name: Self.formDecode(pair[..<equals]), value: Self.formDecode(pair[pair.index(after: equals)...]))
        }
    }

    /// The first decoded value of the query item called `name`, or `nil`.
    ///
    /// ```swift
    /// let count = request.queryValue("count").flatMap(Int.init) ?? 10
    /// ```
    public func queryValue(_ name: String) -> String? {
        for item in queryItems where item.name == name { return item.value ?? "" }
        return nil
    }

    /// The value of the header called `name`, compared case-insensitively.
    ///
    /// When the header appears more than once, the values are joined with `", "` in the order received.
    ///
    /// ```swift
    /// request.header("content-type")  // "application/json"
    /// ```
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The body decoded as UTF-8, or `nil` when it is not valid UTF-8.
    ///
    /// ```swift
    /// #expect(server.requests.last?.bodyText == "{\"a\":1}")
    /// ```
    public var bodyText: String? {
        String(data: body, encoding: .utf8)
    }

    static func split(target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let scheme = rest.range(of: "://"), rest[..<scheme.lowerBound].allSatisfy(\.isLetter) {
            rest = rest[scheme.upperBound...]
            if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = rest[slash...]
            } else {
                return (path: "/", query: nil)
            }
        }
        guard let question = rest.firstIndex(of: "?") else { return (path: String(rest), query: nil) }
        let path = rest[..<question]
        return (path: path.isEmpty ? "/" : String(path), query: String(rest[rest.index(after: question)...]))
    }

    static func formDecode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let high = hexValue(iterator[iterator.startIndex]),
                let low = hexValue(iterator[iterator.startIndex + 1])
            {
                bytes.append(high << 4 | low)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
