import RequestKitDSL
import RequestKitModel
import RequestKitSending

extension Client {
    /// Sends a typed request, validates the response and decodes its body with the client's decoder (the
    /// request's own decoder is for sending it without a client).
    ///
    /// ```swift
    /// let todos = try await client.value(AnyRequest<[Todo]> { Path("todos") })
    /// ```
    /// - Throws: ``RequestError``.
    public func value<Value>(_ request: AnyRequest<Value>) async throws(RequestError) -> Value {
        try await response(for: request).value
    }

    /// Sends a typed request and returns the decoded value with the response (status, headers, cookies).
    ///
    /// ```swift
    /// let result = try await client.response(for: AnyRequest<User> { Path("me") })
    /// print(result.value.name, result.statusCode)
    /// ```
    /// - Throws: ``RequestError``.
    public func response<Value>(for request: AnyRequest<Value>) async throws(RequestError) -> TypedResponse<Value> {
        let decoder = configuration.decoder
        return try await self.request(request).validatedResponse { response, _ throws(RequestError) in
            TypedResponse(value: try response.decode(Value.self, decoder: decoder), response: response)
        }
    }
}
