import RequestKitModel

/// A decoded value together with the response it came from: status, headers, cookies, raw body, where it came
/// from (``cacheStatus``) and where its time went (``metrics``).
///
/// ```swift
/// let result = try await client.response(for: GetUser(id: 1))
/// print(result.value.name, result.status, result.headers.etag ?? "", result.cookies, result.cacheStatus)
/// ```
public struct TypedResponse<Value: Sendable>: Sendable {
    /// The decoded body.
    public var value: Value
    /// The whole response.
    public var response: Response

    /// Pairs a value with its response.
    ///
    /// ```swift
    /// let typed = TypedResponse(value: user, response: response)
    /// ```
    public init(value: Value, response: Response) {
        self.value = value
        self.response = response
    }

    /// The response status.
    public var status: HTTPStatus { response.status }

    /// The numeric status code.
    public var statusCode: Int { response.statusCode }

    /// The response headers.
    public var headers: HTTPHeaders { response.headers }

    /// The cookies the response set.
    public var cookies: [ResponseCookie] { response.cookies }

    /// Whether the response came from the network or from a ``ResponseCache`` (``Response/cacheStatus``).
    ///
    /// ```swift
    /// let result = try await client.response(for: GetUser(id: 1))
    /// if result.cacheStatus == .hit { print("no request was sent") }
    /// ```
    public var cacheStatus: CacheStatus { response.cacheStatus }

    /// Where the request's time went: one attempt per trip to the network (``Response/metrics``).
    ///
    /// ```swift
    /// let result = try await client.response(for: GetUser(id: 1))
    /// print(result.metrics.attempts.last?.timeline ?? "answered without a request")
    /// ```
    public var metrics: RequestMetrics { response.metrics }

    /// A response with the value transformed.
    ///
    /// ```swift
    /// let name = result.map(\.name)
    /// ```
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> TypedResponse<T> {
        TypedResponse<T>(value: try transform(value), response: response)
    }
}

extension TypedResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The value's type and the response's redacted ``Response/description``.
    ///
    /// ```swift
    /// print(try await client.response(for: GetUser(id: 1)))  // TypedResponse<User>: 200 OK (42 bytes) from …
    /// ```
    public var description: String { "TypedResponse<\(Value.self)>: \(response.description)" }

    /// The value's type and the response's redacted ``Response/debugDescription``.
    public var debugDescription: String { "TypedResponse<\(Value.self)>: \(response.debugDescription)" }

    /// What `dump(result)` shows: the value and the redacted response.
    public var customMirror: Mirror {
        Mirror(self, children: ["value": value, "response": response], displayStyle: .struct)
    }
}
