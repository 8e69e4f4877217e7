import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Transport {
    /// The default buffered send: streams the request with ``stream(_:)`` and collects the whole body, up to the
    /// request's ``ResponseLimits/maxBodyBytes`` (a longer body fails with a ``RequestError`` of kind
    /// ``RequestError/Kind/responseTooLarge`` and the stream is stopped, which closes the connection).
    ///
    /// ```swift
    /// let response = try await mockTransport.send(TransferRequest(URLRequest(url: healthURL)))
    /// ```
    public func send(_ request: TransferRequest) async throws -> Response {
        let streaming = try await stream(request)
        var response = streaming.head
        response.body = try await streaming.collect(upTo: request.responseLimits.maxBodyBytes)
        return response
    }

    /// Sends a request whose body (if any) is `httpBody`, and returns the complete response: the transport on
    /// its own, without the request pipeline (no redirects, retries, cookies or interceptors).
    ///
    /// ```swift
    /// let response = try await NativeTransport.shared.send(URLRequest(url: healthURL))
    /// ```
    /// - Parameter request: The request.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError``, or any error the transport throws.
    public func send(_ request: URLRequest) async throws -> Response {
        try await send(TransferRequest(request))
    }
}
