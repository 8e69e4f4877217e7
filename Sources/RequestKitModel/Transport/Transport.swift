import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends a built request and returns the server's response: the seam between RequestKit and the network.
///
/// The default is ``NativeTransport/shared`` (the native one) on Linux and ``URLSessionTransport/shared`` on Apple
/// platforms. Tests inject a
/// `MockTransport` (from RequestKitTesting), and projects can wrap or replace the transport with the `Using`
/// component or on a client.
///
/// A transport does one thing: it sends one request and hands back the response **as it comes**. Everything
/// else is the request pipeline's job, the same for every transport: interceptors, cookies, monitors, the total
/// deadline, retries, redirects (a transport returns a 3xx as it is, and never follows it), validation of what
/// is sent, and buffering a whole body. So a custom transport gets every one of RequestKit's guarantees for free.
///
/// ``stream(_:)`` is the one requirement. `send(_:)` is an optional faster path for a response
/// read whole into memory; its default streams and collects.
///
/// ```swift
/// struct Recording: Transport {
///     let base: any Transport
///     func stream(_ request: TransferRequest) async throws -> StreamingResponse {
///         print(request.urlRequest.httpMethod ?? "GET", request.urlRequest.url?.absoluteString ?? "")
///         return try await base.stream(request)
///     }
/// }
/// ```
///
/// ## What a transport must do
///
/// - **Request body**: ``TransferRequest/body`` is a ``RequestBody`` that may be in memory, a file, or a
///   sequence of in-memory and file segments (a multipart form); when it is nil, `urlRequest.httpBody` (if any)
///   is the body. The transport reads a ``RequestBody`` with ``TransferRequest/makeBodyReader()`` a block at a time
///   (which reports upload progress), and sends `Content-Length` when ``RequestBody/length`` is known (chunked
///   otherwise). A body may be sent more than once (a retry, a 307 redirect): each call reads it afresh.
/// - **Response body**: the transport returns as soon as the head (status and headers) arrives. The body comes
///   through a ``ResponseBodyStream`` it creates with ``ResponseBodyStream/makeStream(bufferLimit:)``: it
///   yields chunks to the continuation, and when ``ResponseBodyStream/Continuation/yield(_:)`` returns `false`
///   (the buffer holds ``TransferRequest/bufferLimit`` bytes or more) it stops reading from the network until the
///   continuation's `onDemand` handler runs. (``URLSessionTransport`` on Linux cannot stop libcurl, so it spools
///   to a temporary file instead; a socket-based transport should simply stop reading the socket.) When the
///   consumer stops early (cancels its task or drops the sequence), the `onTermination` handler runs: the
///   transport must then close the connection.
/// - **Response limits**: ``TransferRequest/responseLimits`` says how large the response may be. A transport
///   that can should stop reading and close the connection past a limit, failing with
///   ``RequestError/responseTooLarge(limit:response:)``. The pipeline holds a body collected in memory to
///   ``ResponseLimits/maxBodyBytes`` whatever the transport does, but only once `send(_:)` has returned it.
/// - **Errors**: before the head, `stream(_:)` throws; afterwards, the transport finishes the stream with the
///   error. Throw ``RequestError`` where you can say what happened (`.timedOut`, `.cancelled`, `.transport`); any
///   other error is wrapped as a transport failure. The idle timeout (`urlRequest.timeoutInterval`) counts time
///   spent waiting for a connection or for the network, never time the consumer holds the stream paused.
///   Cancelling the calling task must cancel the transfer.
public protocol Transport: Sendable {
    /// Sends `request`, streaming its body, and returns when the response head arrives, with the body still to be
    /// read from ``StreamingResponse/body``. A 3xx is returned as it is.
    ///
    /// ```swift
    /// let streaming = try await transport.stream(TransferRequest(urlRequest, body: .init(file: videoURL)))
    /// for try await chunk in streaming.body { print(chunk.count) }
    /// ```
    /// - Parameter request: The request head, its body and how to report progress and bound the buffer.
    /// - Returns: The response head and its body stream.
    /// - Throws: ``RequestError``, or any error, which is reported as a transport failure.
    func stream(_ request: TransferRequest) async throws -> StreamingResponse

    /// Sends `request` and returns the complete response, whatever its status; a 3xx is returned as it is. The
    /// default implementation calls ``stream(_:)`` and collects the body.
    ///
    /// ```swift
    /// let response = try await transport.send(TransferRequest(URLRequest(url: healthURL)))
    /// ```
    /// - Parameter request: The request head, its body and how to report progress.
    /// - Returns: The response.
    /// - Throws: ``RequestError``, or any error, which is reported as a transport failure.
    func send(_ request: TransferRequest) async throws -> Response
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
