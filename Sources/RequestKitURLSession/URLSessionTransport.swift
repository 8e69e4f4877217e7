import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One long-lived `URLSession` (FoundationNetworking over libcurl on Linux): the default transport on Apple
/// platforms, and on Linux in a process whose environment names a proxy (``NativeTransport`` otherwise).
///
/// The transport sends one request and returns the response as it comes: it never follows a redirect itself.
/// A 3xx comes back with its status, `Location` and body, and the request pipeline applies the request's
/// ``RedirectPolicy``, the same way for every transport.
///
/// Each transport has one session, one delegate and one table of running transfers, shared by every request it
/// sends: `send(_:)` collects a whole body, ``stream(_:)`` returns at the head and hands the body
/// over as it arrives, with a bounded buffer (the task is suspended on Apple platforms when the consumer falls
/// behind; on Linux, where libcurl cannot be paused, the excess waits in an unnamed temporary file). The session
/// keeps no cache and no cookies of its own, so each request sends exactly what it declares.
///
/// URLSession opens at most ``maxConnectionsPerHost`` connections to one host (six by default, as browsers
/// do); further requests to that host wait for one, however unrelated they are. A ``RequestGroup`` runs four
/// requests at once by default, so slow requests in a group leave room for others; for more parallel
/// requests to one host, raise the limit with ``init(maxConnectionsPerHost:)``.
/// Cancelling the task that awaits a request cancels the transfer and closes its connection.
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral)
/// let response = try await Request {
///     Url("http://127.0.0.1:8080/status/204")
///     Using(transport)
/// }.send()
/// ```
public final class URLSessionTransport: Transport {
    /// The transport every request uses unless told otherwise.
    public static let shared = URLSessionTransport()

    /// The underlying session.
    public let session: URLSession
    private let registry: TransferRegistry

    /// Creates a transport with its own session.
    ///
    /// ```swift
    /// let configuration = URLSessionConfiguration.default
    /// configuration.httpMaximumConnectionsPerHost = 4
    /// let transport = URLSessionTransport(configuration: configuration)
    /// ```
    /// - Parameter configuration: The session configuration; by default no cache and no cookie storage.
    public init(configuration: URLSessionConfiguration = URLSessionTransport.defaultConfiguration()) {
        let registry = TransferRegistry()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "RequestKit.URLSessionTransport"
        self.registry = registry
        self.session = URLSession(
            configuration: configuration, delegate: URLSessionTransportDelegate(registry: registry),
            delegateQueue: queue)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The configuration new transports use: no URL cache, no cookie storage, cookies not set automatically,
    /// and ``defaultMaxConnectionsPerHost`` connections per host.
    ///
    /// ```swift
    /// let configuration = URLSessionTransport.defaultConfiguration()
    /// ```
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.httpMaximumConnectionsPerHost = defaultMaxConnectionsPerHost
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return configuration
    }

    /// Sends `request`, reading its body from memory or disk, and returns the whole response, collected in
    /// memory as it arrives; a 3xx is returned as it is. The same transfer as ``stream(_:)``, without the
    /// hand-over of each chunk.
    ///
    /// ```swift
    /// let response = try await URLSessionTransport.shared.send(TransferRequest(URLRequest(url: healthURL)))
    /// ```
    /// - Parameter request: The request head, its body and how to report upload progress.
    /// - Returns: The response, whatever its status.
    /// - Throws: ``RequestError``: a timeout, a cancellation, a body file that cannot be read, or a transport
    ///   failure.
    public func send(_ request: TransferRequest) async throws -> Response {
        try Task.checkCancellation()
        let bodyFailure = BodyReadFailure()
        let urlRequest = try Self.prepare(request, bodyFailure: bodyFailure)
        let registry = self.registry
        let start = TaskStart()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                start.begin(
                    session: session, request: urlRequest,
                    register: { task in
                        registry.register(
                            task, idleTimeout: urlRequest.timeoutInterval, bodyFailure: bodyFailure,
                            limits: request.responseLimits, destination: .whole(continuation))
                    },
                    resumed: { registry.resumed($0) }, cancelled: { registry.cancelSoon($0) })
            }
        } onCancel: {
            start.cancel { registry.cancelSoon($0) }
        }
    }

    /// Streams the request body from memory or disk and returns at the response head (a 3xx as it is), with the
    /// body still to be read. The task is suspended while the consumer's buffer is full on Apple platforms; on
    /// Linux the bytes that keep arriving wait in an unnamed temporary file.
    ///
    /// A file or multipart body is read a block at a time, with `Content-Length` from its length on Apple
    /// platforms and chunked on Linux (FoundationNetworking sends every body stream chunked). Cancelling the
    /// calling task before the head, or the consumer's task afterwards, cancels the URLSession task, which closes
    /// the connection.
    ///
    /// ```swift
    /// let streaming = try await URLSessionTransport.shared.stream(TransferRequest(urlRequest))
    /// for try await chunk in streaming.body { print(chunk.count) }
    /// ```
    /// - Parameter request: The request head, its body and how to report progress and bound the buffer.
    /// - Returns: The response head and its body stream.
    /// - Throws: ``RequestError``: a timeout, a cancellation, a body file that cannot be read, or a transport
    ///   failure before the head arrived.
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        try Task.checkCancellation()
        let bodyFailure = BodyReadFailure()
        let urlRequest = try Self.prepare(request, bodyFailure: bodyFailure)
        let registry = self.registry
        let start = TaskStart()
        let (stream, body) = ResponseBodyStream.makeStream(bufferLimit: request.bufferLimit)
        body.onDemand = {
            if let identifier = start.startedIdentifier { registry.resumeReadingSoon(identifier) }
        }
        body.onTermination = { start.cancel { registry.cancelSoon($0) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (head: CheckedContinuation<StreamingResponse, any Error>) in
                start.begin(
                    session: session, request: urlRequest,
                    register: { task in
                        registry.register(
                            task, idleTimeout: urlRequest.timeoutInterval, bodyFailure: bodyFailure,
                            limits: request.responseLimits,
                            destination: .stream(head: head, body: body, stream: stream))
                    },
                    resumed: { registry.resumed($0) }, cancelled: { registry.cancelSoon($0) })
            }
        } onCancel: {
            start.cancel { registry.cancelSoon($0) }
        }
    }

    /// The request to hand URLSession: the body as a stream read from disk, or as in-memory bytes.
    private static func prepare(_ request: TransferRequest, bodyFailure: BodyReadFailure) throws -> URLRequest {
        if let url = request.url, HTTPSyntax.isUnixSocketScheme(url.scheme ?? "") {
            throw RequestError.invalidRequest([
                RequestProblem(
                    .unsupportedScheme,
                    "URLSession cannot reach the Unix socket of \"\(url.absoluteString)\": send it with NativeTransport"
                )
            ])
        }
        if !request.dnsOverrides.isEmpty, let url = request.url, let host = url.host {
            let port = url.port ?? (HTTPSyntax.equalsIgnoringCase(url.scheme ?? "", "https") ? 443 : 80)
            if request.dnsOverrides.addresses(host: host, port: port) != nil {
                throw RequestError.invalidRequest([
                    RequestProblem(
                        .invalidDNSOverride,
                        "URLSession cannot connect \(host) port \(port) to the addresses a DNS override fixes: "
                            + "send it with NativeTransport")
                ])
            }
        }
        guard let body = request.body else { return request.urlRequest }
        var urlRequest = request.headWithContentLength()
        if !body.isInMemory, let reader = try request.makeBodyReader() {
            urlRequest.httpBody = nil
            #if canImport(FoundationNetworking)
            // FoundationNetworking always sends a body stream chunked, and adding Content-Length as well would
            // make the request invalid (RFC 9112 §6.1), so the length is left out.
            urlRequest.setValue(nil, forHTTPHeaderField: "Content-Length")
            urlRequest.httpBodyStream = BodyInputStream(reader: reader, failureRecord: bodyFailure)
            #else
            urlRequest.httpBodyStream = BoundBodyStream.make(reader: reader)
            #endif
        } else {
            urlRequest.httpBody = body.data
            if let progress = request.uploadProgress {
                let count = Int64(body.data.count)
                progress(TransferProgress(completedBytes: count, totalBytes: count))
            }
        }
        return urlRequest
    }
}
