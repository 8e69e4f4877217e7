/// A decoded value together with the response it came from: status, headers, cookies and raw body.
///
/// ```swift
/// let result = try await client.response(for: GetUser(id: 1))
/// print(result.value.name, result.status, result.headers.etag ?? "", result.cookies)
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

    /// A response with the value transformed.
    ///
    /// ```swift
    /// let name = result.map(\.name)
    /// ```
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> TypedResponse<T> {
        TypedResponse<T>(value: try transform(value), response: response)
    }
}
