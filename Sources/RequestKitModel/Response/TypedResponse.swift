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
