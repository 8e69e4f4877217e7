import RequestKitDSL
import RequestKitJSON
import RequestKitModel

extension Response {
    /// Parses the body as JSON.
    ///
    /// ```swift
    /// let json = try response.json()
    /// print(json.user.name.string ?? "anonymous")
    /// ```
    /// - Returns: The parsed document.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/decoding``, keeping the parser's error (with line
    ///   and column) and the response.
    public func json() throws(RequestError) -> Json {
        do {
            return try Json(parsing: body)
        } catch {
            throw RequestError.decoding(error, type: "Json", response: self)
        }
    }
}

extension RequestError {
    /// The error response's body as JSON, when it parses.
    ///
    /// ```swift
    /// catch { print(error.errorJson?.message.string ?? error.description) }
    /// ```
    public var errorJson: Json? {
        guard let body = responseBody, !body.isEmpty else { return nil }
        return try? Json(parsing: body)
    }
}

extension RequestRepresentable {
    /// Sends the request, validates the response and parses its body as JSON.
    ///
    /// ```swift
    /// let json = try await Request { Url("http://127.0.0.1:8080/json") }.json()
    /// print(json.slideshow.title.string ?? "")
    /// ```
    /// - Throws: ``RequestError``, including a body that is not JSON.
    public func json() async throws(RequestError) -> Json {
        try await validatedResponse { response, _ throws(RequestError) in try response.json() }
    }
}

extension Request {
    /// Calls `handler` with the body parsed as JSON when the request succeeds; a body that is not JSON goes to
    /// `onError`.
    ///
    /// ```swift
    /// Request { Url("http://127.0.0.1:8080/json") }
    ///     .onJson { json in print(json.slideshow.title.string ?? "") }
    ///     .call()
    /// ```
    public func onJson(_ handler: @escaping @Sendable (Json) -> Void) -> Request {
        var copy = self
        copy.callbacks.response.append { response throws(RequestError) in handler(try response.json()) }
        return copy
    }
}

extension AnyRequest {
    /// Calls `handler` with the body parsed as JSON when the request succeeds.
    ///
    /// ```swift
    /// typed.onJson { json in print(json) }
    /// ```
    public func onJson(_ handler: @escaping @Sendable (Json) -> Void) -> Self {
        var copy = self
        copy.request = request.onJson(handler)
        return copy
    }
}
