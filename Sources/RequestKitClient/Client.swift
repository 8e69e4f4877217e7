import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel
import RequestKitSending

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests to one API: resolves relative URLs against a base URL and applies shared defaults
/// (headers, timeouts, validation, JSON coders, transport) and features (interceptors, retries, redirects,
/// monitors, cookies) to every request.
///
/// ```swift
/// let client = Client(baseURL: server.url("/api/")) {
///     Header.UserAgent(.requestKit)
///     Header.Authorization(.bearer(token))
///     Timeout(30)
/// }
/// let user = try await client.decode(Request { Path("users", 1) }, as: User.self)
/// let todos = try await client.send(ListTodos(userID: 1))   // an Endpoint
/// ```
///
/// `Url("users")`, `Url("/users")` and `Path("users")` all resolve to `…/api/users`: one slash between the
/// base and the rest, whatever slashes either side has, and a query in the base URL is kept. An absolute
/// `Url` is sent as it is.
public struct Client: Sendable {
    /// What this client applies to every request.
    public var configuration: Configuration

    /// Creates a client from a configuration.
    ///
    /// ```swift
    /// let client = Client(configuration: Client.Configuration(baseURL: url))
    /// ```
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Creates a client, adjusting the default configuration.
    ///
    /// ```swift
    /// let client = Client(baseURL: url) { configuration in
    ///     configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
    ///     configuration.retryPolicy = .exponential(maxAttempts: 3)
    /// }
    /// ```
    public init(baseURL: URL, _ configure: (inout Configuration) -> Void = { _ in }) {
        var configuration = Configuration(baseURL: baseURL)
        configure(&configuration)
        self.configuration = configuration
    }

    /// Creates a client whose requests all start with the given components.
    ///
    /// ```swift
    /// let client = Client(baseURL: url) {
    ///     Header.UserAgent(.requestKit)
    ///     Timeout(30)
    /// }
    /// ```
    public init(baseURL: URL, @RequestBuilder defaults: () -> any RequestComponent) {
        var configuration = Configuration(baseURL: baseURL)
        configuration.defaults = [defaults()]
        self.configuration = configuration
    }

    /// The base URL.
    public var baseURL: URL { configuration.baseURL }

    /// A copy with more default components, applied after the existing ones.
    ///
    /// ```swift
    /// let admin = client.adding { Header.Any(key: "X-Role", value: "admin") }
    /// ```
    public func adding(@RequestBuilder _ defaults: () -> any RequestComponent) -> Client {
        var copy = self
        copy.configuration.defaults.append(defaults())
        return copy
    }

    /// The request as this client sends it: the client's defaults and features first, then the request's own
    /// components. Every way of sending works on it, so the client adds nothing to learn.
    ///
    /// ```swift
    /// let users = client.request(Request { Path("users") })
    /// for try await line in try await client.request(Request { Path("logs") }).stream().lines { print(line) }
    /// try await client.request(Request { Path("export") }).download(to: fileURL)
    /// for try await event in client.request(Request { Path("events") }).events() { print(event.data) }
    /// ```
    public func request(_ request: some RequestRepresentable) -> ClientRequest {
        let request = request.request
        return ClientRequest(
            request: Request(
                root: ComponentList(components: [ClientDefaults(configuration: configuration), request.root]),
                callbacks: request.callbacks))
    }

    /// A typed request as this client sends it, decoding with the client's decoder.
    ///
    /// ```swift
    /// let todos = try await client.request(AnyRequest<[Todo]> { Path("todos") }).value()
    /// ```
    public func request<Value>(_ request: AnyRequest<Value>) -> AnyRequest<Value> {
        AnyRequest(self.request(request.request).request, decoder: configuration.decoder)
    }

    /// The parts of a request as this client sends it: its defaults first, then the request's components.
    ///
    /// ```swift
    /// let parts = client.parts(for: Request { Path("users") })
    /// ```
    public func parts(for request: some RequestRepresentable) -> RequestParts {
        self.request(request).request.parts()
    }

    /// Builds the Foundation request this client would send (before interceptors adapt it).
    ///
    /// ```swift
    /// let urlRequest = try client.urlRequest(for: Request { Path("users") })
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest``, listing every problem.
    public func urlRequest(for request: some RequestRepresentable) throws(RequestError) -> URLRequest {
        try parts(for: request).makeURLRequest()
    }

    /// The request as this client sends it, as a curl command with secrets redacted: the client's defaults, the
    /// headers its interceptors add (the `Authorization` of ``Client/Configuration/useBearerToken(_:refresh:)``, shown
    /// as `<redacted>`) and its cookie jar's cookies (``RequestRepresentable/cURL``).
    ///
    /// ```swift
    /// print(client.cURL(for: Request { Path("users") }))
    /// ```
    public func cURL(for request: some RequestRepresentable) -> String {
        self.request(request).cURL
    }

    /// Builds the Foundation request this client sends for an endpoint (before interceptors adapt it).
    ///
    /// ```swift
    /// let urlRequest = try client.urlRequest(for: GetProfile(userID: "ann"))
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest``, listing every problem.
    public func urlRequest(for endpoint: some Endpoint) throws(RequestError) -> URLRequest {
        try urlRequest(for: endpoint.request)
    }

    /// The request this client sends for an endpoint, as a curl command with secrets redacted.
    ///
    /// ```swift
    /// print(client.cURL(for: GetProfile(userID: "ann")))
    /// ```
    public func cURL(for endpoint: some Endpoint) -> String {
        cURL(for: endpoint.request)
    }

    /// Sends a request and returns the response, whatever its status: `request(_:)` then `send()`.
    ///
    /// ```swift
    /// let response = try await client.send(Request { Path("status", 404) })
    /// response.statusCode  // 404
    /// ```
    /// - Throws: ``RequestError``: invalid request, transport failure, timeout, cancellation.
    public func send(_ request: some RequestRepresentable) async throws(RequestError) -> Response {
        try await self.request(request).send()
    }

    /// Sends a request and validates the response (the client's validation, or the request's `Validate`).
    ///
    /// ```swift
    /// let response = try await client.validatedResponse(for: Request { Path("users") })
    /// ```
    /// - Throws: ``RequestError``; an unacceptable status keeps the response and any decoded error body.
    public func validatedResponse(for request: some RequestRepresentable) async throws(RequestError) -> Response {
        try await self.request(request).validatedResponse()
    }

    /// Sends a request, validates the response and returns its body.
    ///
    /// ```swift
    /// let bytes = try await client.data(Request { Path("bytes", 16) })
    /// ```
    /// - Throws: ``RequestError``.
    public func data(_ request: some RequestRepresentable) async throws(RequestError) -> Data {
        try await self.request(request).data()
    }

    /// Sends a request, validates the response and returns its body as text.
    ///
    /// ```swift
    /// let text = try await client.string(Request { Path("robots.txt") })
    /// ```
    /// - Throws: ``RequestError``, including a body that is not valid text in its charset.
    public func string(_ request: some RequestRepresentable) async throws(RequestError) -> String {
        try await self.request(request).string()
    }

    /// Sends a request, validates the response and parses its body as JSON.
    ///
    /// ```swift
    /// let json = try await client.json(Request { Path("json") })
    /// ```
    /// - Throws: ``RequestError``, including a body that is not JSON.
    public func json(_ request: some RequestRepresentable) async throws(RequestError) -> Json {
        try await self.request(request).json()
    }

    /// Sends a request, validates the response and decodes its body with the client's decoder. An empty body
    /// decodes into ``NoContent``.
    ///
    /// ```swift
    /// let user = try await client.decode(Request { Path("users", 1) }, as: User.self)
    /// ```
    /// - Throws: ``RequestError``, including a decoding failure that keeps the body.
    public func decode<T: Decodable>(
        _ request: some RequestRepresentable, as type: T.Type = T.self
    ) async throws(RequestError) -> T {
        try await self.request(request).decode(T.self)
    }

    /// Sends an endpoint and returns its decoded output. A non-success status throws a ``RequestError`` that
    /// keeps the response and the endpoint's decoded ``Endpoint/ErrorBody``.
    ///
    /// ```swift
    /// let user = try await client.send(GetUser(id: 1))
    /// ```
    /// - Throws: ``RequestError``.
    public func send<E: Endpoint>(_ endpoint: E) async throws(RequestError) -> E.Output {
        try await response(for: endpoint).value
    }

    /// Sends an endpoint and returns its decoded output with the response (status, headers, cookies).
    ///
    /// ```swift
    /// let result = try await client.response(for: GetUser(id: 1))
    /// print(result.value, result.headers.etag ?? "")
    /// ```
    /// - Throws: ``RequestError``.
    public func response<E: Endpoint>(for endpoint: E) async throws(RequestError) -> TypedResponse<E.Output> {
        let decoder = configuration.decoder
        let request = self.request(endpoint.request.decodingErrorBody(as: E.ErrorBody.self, decoder: decoder))
        return try await request.validatedResponse { response, _ throws(RequestError) in
            TypedResponse(value: try endpoint.decode(response, decoder: decoder), response: response)
        }
    }
}
