import Foundation

/// An in-process HTTP/1.1 server on `127.0.0.1` and a random free port, for tests that cross the wire.
///
/// The server starts listening as soon as it is created and answers httpbin-style built-in routes plus any
/// custom routes you add with ``route(_:method:_:)``. Connections are served by two event loop threads that every
/// server in the process shares, so thousands of idle connections cost no thread; custom route handlers and
/// streamed body closures run on a small shared set of handler threads (eight start at once; work that has waited a
/// second for one starts another, up to 32), so they may block or sleep. It records every request (``requests``) and keeps
/// counters (``stats``) that let tests prove concurrency limits, connection reuse and cancellation.
///
/// ```swift
/// let server = try TestServer()
/// defer { server.stop() }
/// server.route("/todos/{id}", method: "GET") { request in
///     .json(["id": Int(request.pathParameters["id"] ?? "") ?? 0])
/// }
/// let (data, _) = try await URLSession.shared.data(from: server.url("/todos/7"))
/// #expect(String(decoding: data, as: UTF8.self) == #"{"id":7}"#)
/// #expect(server.requests.last?.path == "/todos/7")
/// ```
///
/// ## Built-in routes
///
/// JSON bodies have sorted keys and no whitespace, so tests can compare exact bytes. The *echo document* is
/// `{"args", "body", "bodyBase64", "bodyLength", "headers", "method", "path", "query", "url"}`: the raw path and
/// query, the percent-decoded query items (a repeated name maps to an array, a bare name to `""`), the headers as
/// received (repeated ones joined with `", "`), and the body as UTF-8 text (`""` when not UTF-8) and base64.
///
/// | Route | Answer |
/// |---|---|
/// | `/anything`, `/anything/…` | the echo document, any method |
/// | `/get`, `/post`, `/put`, `/patch`, `/delete` | the echo document; `405` for another method |
/// | `/status/{code}` | that status with text `status {code}` (none for 204/304; `Location: /anything` for 3xx) |
/// | `/delay/{seconds}` | the echo document after up to 300 s, watching for the client leaving |
/// | `/redirect/{n}`, `/relative-redirect/{n}`, `/absolute-redirect/{n}` | `302` chains ending at `/get` |
/// | `/redirect-to?url=…&status_code=…` | a redirect (302 by default) to `url` |
/// | `/bytes/{n}?seed=S` | `n` bytes of ``TestPayload/randomBytes(count:seed:)`` (at most 100 MiB) |
/// | `/range/{n}` | `n` bytes of `abc…z` repeating; one `Range: bytes=…` gets `206` + `Content-Range`, or `416` |
/// | `/large/{n}` | `n` bytes of ``TestPayload/largeBodyByte(at:)``, generated while sending |
/// | `/stream/{n}` | `n` echo documents with `"id"`, one JSON line per chunk |
/// | `/chunked?chunks=N&size=S&interval=MS` | a chunked body with `X-Chunk-Count`, `X-Content-SHA256` trailers |
/// | `/drip?numbytes=N&duration=S&delay=S&code=C` | `N` `*` bytes spread over `duration`, after `delay` |
/// | `/sse?count=N&retry=MS&interval=MS&drop=K` | events `id: i`, `data: message i`, after `Last-Event-ID` if sent; |
/// | | `drop=K` cuts the server's first such stream after `K` events |
/// | `/gzip`, `/deflate` | the echo document plus `"gzipped"`/`"deflated": true`, in that `Content-Encoding` |
/// | `/brotli`, `/zstd` | the echo document plus `"brotli"`/`"zstd": true`, in `br`/`zstd` (Linux only) |
/// | `/upload` | `{"bytes": N, "sha256": "…"}` for the request body, any method |
/// | `/headers`, `/ip`, `/user-agent`, `/json` | the request headers, `127.0.0.1`, the `User-Agent`, a fixed document |
/// | `/basic-auth/{user}/{password}`, `/bearer` | `200` for matching credentials, else `401` with `WWW-Authenticate` |
/// | `/cookies`, `/cookies/set?n=v`, `/cookies/delete?n` | the `Cookie` pairs; or set/expire, `302` to `/cookies` |
/// | `/response-headers?Name=Value` | sends those headers and echoes them |
/// | `/etag/{etag}`, `/cache`, `/cache/{seconds}` | `ETag`, `Last-Modified`, `Cache-Control`; `304` when conditional |
/// | `/sequence/{codes}?retry_after=S` | the n-th request to the path gets the n-th code, with `X-Attempt` |
/// | `/fault/{kind}` | `close`, `truncate`, `malformed-status`, `bad-chunk`, `hang`, `hang-body` |
/// | `/hostile/{kind}` | `gzip-bomb`, `br-bomb`, `zstd-bomb`, `endless`, `bad-validators`, `bad-event-id`, `content-length` |
/// | `/websocket/echo`, `/websocket/stream?count=N&size=S`, `/websocket/close?code=C&reason=R` | WebSocket upgrades |
/// | `/websocket/hostile/{kind}` | WebSocket servers that break one rule each (``TestWebSocketStep`` builds your own) |
///
/// Anything else is `404` with the text `not found: {path}`. Malformed requests get a `400` (or `413`, `414`,
/// `431`, `501`, `505`, `408`) whose text says what was wrong, and the connection closes.
///
/// On Linux, ``Configuration/tls`` turns on the TLS mode: every route over `https://`, with one of the test-only
/// ``TestCertificate`` fixtures, optionally requiring a client certificate (see ``TLS``).
///
/// A route handler that captures the server itself keeps it alive; call ``stop()`` explicitly in that case.
public final class TestServer: Sendable {
    let core: ServerCore

    /// Creates a server and starts listening on `127.0.0.1` at a free port chosen by the system.
    ///
    /// ```swift
    /// let server = try TestServer(configuration: .init(maxBodyBytes: 1024))
    /// ```
    /// - Parameter configuration: Limits and timeouts; the defaults suit most tests.
    /// - Throws: An error describing the failing socket call when the server cannot listen.
    public init(configuration: Configuration = .init()) throws {
        core = try ServerCore(configuration: configuration)
        try core.start()
    }

    /// Creates a server after adjusting the default configuration, and starts listening.
    ///
    /// ```swift
    /// let server = try TestServer { $0.maxRequestsPerConnection = 1 }
    /// ```
    /// - Parameter configure: Changes to make to the default ``Configuration``.
    /// - Throws: An error describing the failing socket call when the server cannot listen.
    public convenience init(_ configure: (inout Configuration) -> Void) throws {
        var configuration = Configuration()
        configure(&configuration)
        try self.init(configuration: configuration)
    }

    deinit {
        core.stop()
    }

    /// The configuration the server was created with.
    ///
    /// ```swift
    /// #expect(server.configuration.maxHeaderBytes == 64 * 1024)
    /// ```
    public var configuration: Configuration { core.configuration }

    /// The TCP port the server listens on.
    ///
    /// ```swift
    /// let socketAddress = ("127.0.0.1", server.port)
    /// ```
    public var port: Int { core.port }

    /// The server's root URL, `http://127.0.0.1:PORT` (`https://` in the TLS mode).
    ///
    /// ```swift
    /// let client = Client(baseURL: server.baseURL)
    /// ```
    public var baseURL: URL {
        url("")
    }

    /// A URL on this server for a path with an optional query, such as `url("/anything?a=1")`.
    ///
    /// The text is appended as it is, so it may carry percent-encoding the test wants to send verbatim.
    ///
    /// ```swift
    /// let url = server.url("/status/404")
    /// ```
    /// - Parameter pathAndQuery: The path, optionally followed by `?query`; a missing leading `/` is added.
    /// - Returns: The absolute URL; characters a URL cannot hold are percent-encoded.
    public func url(_ pathAndQuery: String) -> URL {
        let root = "\(configuration.tls == nil ? "http" : "https")://127.0.0.1:\(port)"
        let needsSlash = !pathAndQuery.isEmpty && !pathAndQuery.hasPrefix("/") && !pathAndQuery.hasPrefix("?")
        let pathAndQuery = needsSlash ? "/" + pathAndQuery : pathAndQuery
        if let url = URL(string: root + pathAndQuery) { return url }
        let encoded = pathAndQuery.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? ""
        return URL(string: root + encoded) ?? URL(string: root) ?? URL(fileURLWithPath: "/")
    }

    /// Stops the server: shuts down the listening socket and every open connection, and returns at once.
    ///
    /// It never blocks, so it is safe in a `defer` of an async test; the server's threads end by themselves a
    /// moment later and close their sockets. Calling it more than once is harmless, and `deinit` calls it too. To
    /// know that the port is free and every descriptor closed, await ``shutdown()`` instead.
    ///
    /// ```swift
    /// let server = try TestServer()
    /// defer { server.stop() }
    /// ```
    public func stop() {
        core.stop()
    }

    /// Stops the server and waits, without blocking a thread, until every connection is closed and every running
    /// handler has returned: then the port is free and the server holds no file descriptor.
    ///
    /// ```swift
    /// await server.shutdown()
    /// #expect(server.stats.openConnections == 0)
    /// ```
    public func shutdown() async {
        await core.stopped()
    }

    /// Adds a custom route, which takes precedence over the built-in routes and over routes added earlier.
    ///
    /// `path` is matched against the raw request path without its query. It may contain `{name}` segments,
    /// captured into ``TestRequest/pathParameters``, and may end with a `*` segment matching any remainder.
    /// When the path matches but the method does not, and no other route matches, the answer is `405`.
    ///
    /// ```swift
    /// server.route("/files/*") { request in .text("file at \(request.path)") }
    /// server.route("/users/{id}", method: "DELETE") { _ in .status(204) }
    /// ```
    /// - Parameters:
    ///   - path: The path pattern.
    ///   - method: The method to accept, compared case-insensitively; every method when `nil`.
    ///   - handler: Produces the response; it runs on one of the server's handler threads and may block.
    public func route(
        _ path: String, method: String? = nil, _ handler: @escaping @Sendable (TestRequest) -> TestResponse
    ) {
        let route = Route(pattern: path, method: method, handler: handler)
        core.state.withLock { $0.routes.append(route) }
    }

    /// A snapshot of the server's counters.
    ///
    /// ```swift
    /// #expect(server.stats.peakConnections == 1)  // every request reused one connection
    /// ```
    public var stats: Stats {
        core.state.withLock { $0.stats }
    }

    /// Zeroes the counters, keeping the currently open connections and active requests as the new peaks.
    ///
    /// ```swift
    /// server.resetStats()
    /// #expect(server.stats.requestCount == 0)
    /// ```
    public func resetStats() {
        core.state.withLock { state in
            var stats = Stats()
            stats.openConnections = state.stats.openConnections
            stats.peakConnections = state.stats.openConnections
            stats.activeRequests = state.stats.activeRequests
            stats.peakActiveRequests = state.stats.activeRequests
            state.stats = stats
        }
    }

    /// Every request received completely, in arrival order.
    ///
    /// ```swift
    /// #expect(server.requests.map(\.path) == ["/login", "/profile"])
    /// ```
    public var requests: [TestRequest] {
        core.state.withLock { $0.requests }
    }

    /// Forgets the recorded ``requests``.
    ///
    /// ```swift
    /// server.clearRequests()
    /// ```
    public func clearRequests() {
        core.state.withLock { $0.requests.removeAll() }
    }

    /// Waits until at least `count` requests have been received, or `timeout` passes.
    ///
    /// ```swift
    /// #expect(await server.waitForRequests(count: 3, timeout: .seconds(5)))
    /// ```
    /// - Parameters:
    ///   - count: The number of recorded requests to wait for.
    ///   - timeout: The longest time to wait.
    /// - Returns: `true` when `count` requests arrived in time.
    public func waitForRequests(count: Int, timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if core.state.withLock({ $0.requests.count }) >= count { return true }
            if clock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the counters satisfy `condition`, or `timeout` passes, checking every few milliseconds.
    ///
    /// Counters change on the server's threads slightly after the client sees the related bytes (a request is
    /// still active until its last byte is written), so tests should wait for a state rather than assert at once.
    ///
    /// ```swift
    /// task.cancel()
    /// #expect(await server.waitUntil { $0.abortedRequests == 1 })
    /// ```
    /// - Parameters:
    ///   - timeout: The longest time to wait; two minutes by default, since a starved machine may take that long.
    ///   - condition: The state to wait for.
    /// - Returns: `true` when the condition held in time.
    public func waitUntil(timeout: Duration = .seconds(120), _ condition: (Stats) -> Bool) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while true {
            if condition(stats) { return true }
            if clock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}
