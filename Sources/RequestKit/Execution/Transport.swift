import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a built request and returns the server's response: the seam between RequestKit and the network.
///
/// The default is ``URLSessionTransport/shared``. Tests inject a `MockTransport` (from RequestKitTesting),
/// and projects can wrap or replace the transport with the `Using` component or on a client.
///
/// A transport throws ``RequestError`` where it can say what happened (`.timedOut`, `.cancelled`,
/// `.transport`); any other error is wrapped as a transport failure. The idle timeout is the request's
/// `timeoutInterval`; cancelling the calling task must cancel the transfer.
///
/// ```swift
/// struct Recording: Transport {
///     let base: any Transport
///     func send(_ request: URLRequest) async throws -> Response {
///         print(request.httpMethod ?? "GET", request.url?.absoluteString ?? "")
///         return try await base.send(request)
///     }
/// }
/// ```
public protocol Transport: Sendable {
    /// Sends `request` and returns the complete response, whatever its status.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response.
    /// - Throws: ``RequestError``, or any error, which is reported as a transport failure.
    func send(_ request: URLRequest) async throws -> Response
}

/// Sends a request through a specific transport instead of the default.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/health")
///     Using(mockTransport)
/// }
/// ```
public struct Using: RequestComponent {
    /// The transport to use.
    public let transport: any Transport

    /// Uses `transport` for this request.
    ///
    /// ```swift
    /// Using(URLSessionTransport.shared)
    /// ```
    public init(_ transport: any Transport) { self.transport = transport }

    public func apply(to parts: inout RequestParts) {
        parts.transport = transport
    }
}
