import Foundation

/// A response that a ``TestServer`` route sends back.
///
/// The server adds `Date`, the framing header (`Content-Length` or `Transfer-Encoding: chunked`) and
/// `Connection: close` when it closes the connection; headers you set yourself are sent as given and first.
/// Statuses that forbid a body (1xx, 204, 304) get no framing header, and a streamed or chunked body sent to an
/// HTTP/1.0 client is delimited by closing the connection, since HTTP/1.0 has no chunked encoding.
///
/// ```swift
/// server.route("/teapot") { _ in
///     TestResponse(status: 418, headers: [("Content-Type", "text/plain")], body: .data(Data("short and stout".utf8)))
/// }
/// ```
public struct TestResponse: Sendable {
    /// The status code, such as `200`.
    ///
    /// ```swift
    /// var response = TestResponse.text("gone"); response.status = 410
    /// ```
    public var status: Int
    /// The reason phrase sent after the status code.
    ///
    /// ```swift
    /// var response = TestResponse.status(200); response.reason = "Fine"
    /// ```
    public var reason: String
    /// The header fields, sent in this order before the ones the server adds.
    ///
    /// ```swift
    /// response.headers.append(("Retry-After", "1"))
    /// ```
    public var headers: [(name: String, value: String)]
    /// The body and how to frame it.
    ///
    /// ```swift
    /// response.body = .data(Data("replaced".utf8))
    /// ```
    public var body: Body
    /// How long the server waits, watching for the client to leave, before sending anything; `nil` for no wait.
    ///
    /// A client that disconnects during the wait is counted in ``TestServer/Stats/abortedRequests``.
    ///
    /// ```swift
    /// var response = TestResponse.status(200); response.delay = .seconds(1)
    /// ```
    public var delay: Duration?
    /// The body as steps the server's event loop plays itself, for built-in routes; `nil` for every other body.
    var steps: BodySteps?
    /// A wait, before ``delay``, until a condition holds (see ``held(longest:until:)``); `nil` for none.
    var hold: ResponseHold?
    /// The WebSocket conversation a `101` starts (see ``webSocket(_:subprotocol:compression:headers:)``); `nil` for
    /// an HTTP response.
    var webSocket: TestWebSocketPlan?

    /// How a response body is produced and framed on the wire.
    ///
    /// ```swift
    /// let body: TestResponse.Body = .chunked([Data("a".utf8), Data("b".utf8)], interval: .milliseconds(50))
    /// ```
    public enum Body: Sendable {
        /// A complete body sent with `Content-Length`.
        ///
        /// If the response headers already carry a `Content-Length`, it is sent unchanged (even if wrong, to
        /// simulate a faulty server) and the connection is closed afterwards when it does not match.
        case data(Data)
        /// A body sent with `Transfer-Encoding: chunked`, one chunk per element, optionally pausing between
        /// chunks and ending with trailer fields.
        case chunked([Data], interval: Duration? = nil, trailers: [(name: String, value: String)] = [])
        /// A streamed body: the server sends the status line and headers, then calls the closure with a writer.
        ///
        /// Without a `Content-Length` header the body is chunked and each ``TestResponseWriter/write(_:)-(Data)``
        /// becomes one chunk; with one, the bytes are sent as they are. The closure runs on one of the server's
        /// handler threads, so it may block and sleep.
        case stream(@Sendable (TestResponseWriter) throws -> Void)
        /// Total control for fault injection: the server sends nothing itself, the closure writes every byte
        /// (status line included) with ``TestResponseWriter/writeRaw(_:)``, and the connection closes afterwards.
        case raw(@Sendable (TestResponseWriter) throws -> Void)
    }

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - reason: The reason phrase; the standard one for `status` when `nil`.
    ///   - headers: Header fields to send, in order.
    ///   - body: The body; empty by default.
    ///
    /// ```swift
    /// TestResponse(status: 202, headers: [("Location", "/jobs/1")])
    /// ```
    public init(
        status: Int = 200,
        reason: String? = nil,
        headers: [(name: String, value: String)] = [],
        body: Body = .data(Data())
    ) {
        self.status = status
        self.reason = reason ?? HTTPStatusReason.phrase(for: status)
        self.headers = headers
        self.body = body
        self.delay = nil
        self.steps = nil
        self.hold = nil
        self.webSocket = nil
    }

    /// A copy of this response that the server sends only after waiting for `delay`.
    ///
    /// ```swift
    /// server.route("/slow") { _ in TestResponse.text("finally").delayed(by: .seconds(2)) }
    /// ```
    /// - Parameter delay: The wait before the status line is sent.
    /// - Returns: The delayed response.
    public func delayed(by delay: Duration) -> TestResponse {
        var response = self
        response.delay = delay
        return response
    }

    /// The value of the header called `name` (case-insensitive), or `nil`.
    ///
    /// ```swift
    /// TestResponse.text("hi").header("content-type")  // "text/plain; charset=utf-8"
    /// ```
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveEquals(name) }?.value
    }
}
