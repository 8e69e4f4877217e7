import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Transport {
    /// The default buffered send: streams the request with ``stream(_:)`` and collects the whole body.
    ///
    /// ```swift
    /// let response = try await mockTransport.send(URLRequest(url: healthURL))
    /// ```
    public func send(_ request: URLRequest) async throws -> Response {
        let streaming = try await stream(TransferRequest(request))
        var response = streaming.head
        response.body = try await streaming.collect()
        return response
    }
}
