#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import RequestKit
import RequestKitHTTPTypes

/// A swift-openapi-runtime `ClientTransport` that sends a generated client's operations through a RequestKit
/// ``Client``: the client's configuration applies to every operation (its default headers, timeouts, retries,
/// redirects, cache, proxies, HTTP/2, monitors and metrics, interceptors, cookies), and a failure reaches the caller
/// as the `ClientError`'s `underlyingError`, a ``RequestError`` with all its detail.
///
/// The response body streams: the generated client gets an `HTTPBody` as soon as the head arrives, reading it pulls
/// the bytes off the connection, and cancelling the reading task (or dropping the body unread) closes it. Every
/// status reaches the generated client, which has a case for each documented one; the client's validation is not
/// applied. The client's `baseURL` is not used: the generated client's server URL is.
///
/// The request body is collected before the request is sent, up to ``maxRequestBodyBytes`` (RequestKit's transport
/// sends bodies held in memory or read from files, so a request can be sent again on a retry or a redirect).
///
/// ```swift
/// let transport = RequestKitTransport(client: Client(baseURL: serverURL) { configuration in
///     configuration.retryPolicy = .exponential(maxAttempts: 3)
/// })
/// let api = GeneratedClient(serverURL: serverURL, transport: transport)
/// ```
public struct RequestKitTransport: ClientTransport {
    /// The client every operation is sent through.
    ///
    /// ```swift
    /// let timeout = transport.client.configuration.timeout
    /// ```
    public var client: Client

    /// The longest request body sent, in bytes; a longer one fails with a ``RequestError`` of kind
    /// ``RequestError/Kind/invalidRequest`` before anything is sent. 64 MiB by default.
    ///
    /// ```swift
    /// var transport = RequestKitTransport(client: client)
    /// transport.maxRequestBodyBytes = 1 << 20
    /// ```
    public var maxRequestBodyBytes: Int

    /// Creates a transport that sends through `client`.
    ///
    /// ```swift
    /// let transport = RequestKitTransport(client: Client(baseURL: serverURL))
    /// ```
    /// - Parameters:
    ///   - client: The client whose configuration applies to every operation.
    ///   - maxRequestBodyBytes: The longest request body sent; 64 MiB by default.
    public init(client: Client, maxRequestBodyBytes: Int = 64 << 20) {
        self.client = client
        self.maxRequestBodyBytes = max(0, maxRequestBodyBytes)
    }

    /// Sends one operation of a generated client and returns the response head with its body streaming.
    ///
    /// ```swift
    /// let (head, body) = try await transport.send(
    ///     HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/greetings/ann"), body: nil,
    ///     baseURL: serverURL, operationID: "getGreeting")
    /// ```
    /// - Parameters:
    ///   - request: The operation's method, path (relative to `baseURL`, with the query) and header fields.
    ///   - body: The request body, if any.
    ///   - baseURL: The server URL the path is relative to.
    ///   - operationID: The operation's identifier in the OpenAPI document.
    /// - Returns: The response head, and its body unless the request was `HEAD` or the status has none.
    /// - Throws: ``RequestError``: a URL that does not resolve, a body too long, a transport failure, a timeout,
    ///   cancellation.
    public func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let operation = try OpenAPIOperation(
            request, body: try await collected(body), baseURL: baseURL)
        let streaming = try await client.request(Request { operation }).stream()
        let head = try HTTPResponse(streaming.head)
        guard request.method != .head, head.status.kind != .informational, head.status.code != 204,
            head.status.code != 304
        else {
            return (head, nil)
        }
        // A decoded body (gzip, br, zstd) is longer than the Content-Length that was sent.
        let length: HTTPBody.Length =
            streaming.head.headers["Content-Encoding"] == nil
            ? streaming.expectedLength.map { .known($0) } ?? .unknown
            : .unknown
        return (head, HTTPBody(streaming.body, length: length, iterationBehavior: .single))
    }

    /// The bytes of `body`, at most ``maxRequestBodyBytes`` of them.
    private func collected(_ body: HTTPBody?) async throws(RequestError) -> RequestBody? {
        guard let body else { return nil }
        if case .known(let length) = body.length, length > maxRequestBodyBytes {
            throw tooLong("\(length) bytes")
        }
        var data = Data()
        do {
            for try await chunk in body {
                guard chunk.count <= maxRequestBodyBytes - data.count else {
                    throw tooLong("more than \(maxRequestBodyBytes) bytes")
                }
                data.append(contentsOf: chunk)
            }
        } catch let error as RequestError {
            throw error
        } catch is CancellationError {
            throw RequestError.cancelled(underlyingError: CancellationError())
        } catch {
            throw RequestError.invalidRequest([
                RequestProblem(.bodyEncodingFailed, "the request body failed: \(error)")
            ])
        }
        return RequestBody(data, contentType: nil)
    }

    private func tooLong(_ size: String) -> RequestError {
        RequestError.invalidRequest([
            RequestProblem(
                .bodyEncodingFailed,
                "the request body has \(size), above the transport's maxRequestBodyBytes (\(maxRequestBodyBytes))")
        ])
    }
}
#endif
