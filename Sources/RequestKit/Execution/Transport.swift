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
///
/// ## Streaming and large bodies
///
/// ``stream(_:)`` is the second, optional requirement. It moves bodies that should not sit in memory:
///
/// - **Request body**: ``TransferRequest/body`` is a ``RequestBody`` that may be in memory, a file, or a
///   sequence of in-memory and file segments (a multipart form). The transport reads it with
///   ``RequestBody/makeReader()`` a block at a time, and sends `Content-Length` when
///   ``RequestBody/length`` is known (chunked otherwise). `urlRequest.httpBody` is nil for such bodies.
/// - **Upload progress**: the reader returned by ``TransferRequest/makeBodyReader()`` reports every block read
///   to ``TransferRequest/uploadProgress``, so a transport gets progress by reading through it.
/// - **Response body**: the transport returns as soon as the head (status and headers) arrives. The body comes
///   through a ``ResponseBodyStream`` it creates with ``ResponseBodyStream/makeStream(bufferLimit:)``: it
///   yields chunks to the continuation, and when ``ResponseBodyStream/Continuation/yield(_:)`` returns `false`
///   (the buffer holds ``TransferRequest/bufferLimit`` bytes or more) it stops reading from the network until the
///   continuation's `onDemand` handler runs. (``URLSessionTransport`` on Linux cannot stop libcurl, so it spools
///   to a temporary file instead; a socket-based transport should simply stop reading the socket.) When the consumer stops early (cancels its task or drops the
///   sequence), the `onTermination` handler runs: the transport must then close the connection.
/// - **Errors**: before the head, `stream(_:)` throws as `send(_:)` does; afterwards, the transport finishes the
///   stream with the error. The idle timeout (`urlRequest.timeoutInterval`) counts only time spent waiting for
///   the network, never time the consumer holds the stream paused.
///
/// The default implementation reads the whole body into memory, calls `send(_:)` and hands the body over as one
/// chunk, so existing transports keep working, without the memory bound.
public protocol Transport: Sendable {
    /// Sends `request` and returns the complete response, whatever its status.
    ///
    /// - Parameter request: The request to send.
    /// - Returns: The response.
    /// - Throws: ``RequestError``, or any error, which is reported as a transport failure.
    func send(_ request: URLRequest) async throws -> Response

    /// Sends `request`, streaming its body from ``TransferRequest/body``, and returns when the response head
    /// arrives, with the body still to be read from ``StreamingResponse/body``.
    ///
    /// ```swift
    /// let streaming = try await transport.stream(TransferRequest(urlRequest, body: .init(file: videoURL)))
    /// for try await chunk in streaming.body { print(chunk.count) }
    /// ```
    /// - Parameter request: The request head, its body and how to report progress and bound the buffer.
    /// - Returns: The response head and its body stream.
    /// - Throws: ``RequestError``, or any error, which is reported as a transport failure.
    func stream(_ request: TransferRequest) async throws -> StreamingResponse
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
