import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitPipeline

extension RequestRepresentable {
    /// Sends the request and returns the response, whatever its status: `send()` does not validate.
    ///
    /// ```swift
    /// let response = try await Request { Url("http://127.0.0.1:8080/status/404") }.send()
    /// response.statusCode  // 404
    /// ```
    /// - Returns: The response.
    /// - Throws: ``RequestError``: invalid request, transport failure, timeout or cancellation.
    public func send() async throws(RequestError) -> Response {
        try await RequestExecutor.send(request.parts())
    }

    /// Sends the request, validates the response and returns it.
    ///
    /// ```swift
    /// let response = try await request.validatedResponse()
    /// ```
    /// - Throws: ``RequestError``; an unacceptable status keeps the status, headers and body, and the decoded
    ///   error body when ``Request/decodingErrorBody(as:decoder:)`` named a type.
    public func validatedResponse() async throws(RequestError) -> Response {
        try await validatedResponse { response, _ throws(RequestError) in response }
    }

    /// Sends the request, validates the response and returns its body.
    ///
    /// ```swift
    /// let bytes = try await Request { Url("http://127.0.0.1:8080/bytes/16") }.data()
    /// ```
    /// - Throws: ``RequestError``, including an unacceptable status (200..<300 unless `Validate` says otherwise).
    public func data() async throws(RequestError) -> Data {
        try await validatedResponse { response, _ throws(RequestError) in response.body }
    }

    /// Sends the request, validates the response and returns its body as text.
    ///
    /// ```swift
    /// let html = try await Request { Url("http://127.0.0.1:8080/") }.string()
    /// ```
    /// - Throws: ``RequestError``, including a body that is not valid text in its charset.
    public func string() async throws(RequestError) -> String {
        try await validatedResponse { response, _ throws(RequestError) in try response.string() }
    }

    /// Sends the request, validates the response and decodes its JSON body.
    ///
    /// ```swift
    /// let todo = try await Request { Url("http://127.0.0.1:8080/todos/1") }.decode(Todo.self)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder; by default a client's (for `client.request(_:)`), or a plain `JSONDecoder`.
    /// - Throws: ``RequestError``, including a decoding failure that keeps the decoder's error and the body.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self, decoder: JSONDecoder? = nil
    )
        async throws(RequestError) -> T
    {
        try await validatedResponse { response, parts throws(RequestError) in
            try response.decode(T.self, decoder: decoder ?? parts[option: JSONDecoderKey.self] ?? JSONDecoder())
        }
    }

    /// Sends, validates and transforms the response, naming the request in any error the transform throws.
    package nonisolated(nonsending) func validatedResponse<T>(
        then transform: (Response, RequestParts) throws(RequestError) -> T
    ) async throws(RequestError) -> T {
        let parts = request.parts()
        let response = try await RequestExecutor.send(parts)
        do {
            try await parts.validation.validate(response)
        } catch {
            throw request.callbacks.attachingErrorBody(to: error).describingRequest(parts)
        }
        do {
            return try transform(response, parts)
        } catch {
            throw error.describingRequest(parts)
        }
    }
}

extension Request {
    /// Sends the request and returns the response, whatever its status: ``RequestRepresentable/send()`` for a
    /// ``Request`` itself, which builds its parts straight from the value instead of from a copy of it.
    ///
    /// ```swift
    /// let response = try await Request { Url("http://127.0.0.1:8080/status/404") }.send()
    /// response.statusCode  // 404
    /// ```
    /// - Returns: The response.
    /// - Throws: ``RequestError``: invalid request, transport failure, timeout or cancellation.
    public func send() async throws(RequestError) -> Response {
        try await RequestExecutor.send(parts())
    }
}
