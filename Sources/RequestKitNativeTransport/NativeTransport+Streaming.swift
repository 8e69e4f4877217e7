import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NativeTransport {
    /// Sends a request whose body may be read from files as it goes, and returns as soon as the response head
    /// arrives; the body then streams in pieces of up to 64 KiB, decompressed when the server compressed it.
    ///
    /// A body of known length is sent with `Content-Length`, one of unknown length with chunked coding. The
    /// event loop stops reading the socket while the consumer's buffer is full (``TransferRequest/bufferLimit``),
    /// so a slow consumer slows the server down instead of filling memory; abandoning the stream or cancelling
    /// the consuming task closes the connection. A redirect is returned as it is.
    ///
    /// The body is bounded only by ``TransferRequest/responseLimits``: its
    /// ``ResponseLimits/maxStreamedBodyBytes`` (none by default) and, for a compressed body, its
    /// ``ResponseLimits/maxDecompressionRatio``. Past either, the stream fails with a ``RequestError`` of kind
    /// ``RequestError/Kind/responseTooLarge`` that keeps the response head, and the connection is closed.
    ///
    /// ```swift
    /// let response = try await NativeTransport.shared.stream(TransferRequest(URLRequest(url: logURL)))
    /// for try await piece in response { print(piece.count) }
    /// ```
    /// - Parameter request: The request, with its body and buffer limit.
    /// - Returns: The response head and its body stream.
    /// - Throws: ``RequestError``.
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        let httpURL = try httpURL(of: request)
        if !sendsItself(httpURL) { return try await configuration.secureTransport.stream(request) }
        let route =
            proxySelection.isEmpty || httpURL.unixSocket != nil ? nil : try await proxyRoute(for: request, to: httpURL)
        let (job, body) = try streamingJob(for: request, to: httpURL, route: route)
        let outcome = try await perform(job, url: httpURL.url)
        return try Self.streamingResponse(outcome, of: job, body: body, url: httpURL.url)
    }

    /// The response `job`'s `outcome` streams into `body`. Out of line, like ``streamingJob(for:to:route:)``.
    @inline(never)
    private static func streamingResponse(
        _ outcome: RequestJob.Outcome, of job: RequestJob, body: ResponseBodyStream, url: URL
    ) throws(RequestError) -> StreamingResponse {
        guard case .head(let head) = outcome else {
            throw RequestError.transport(URLError(.unknown), detail: "the connection returned no response")
        }
        var response = response(head, url: url)
        if let refusal = ProxyServer.refusal(of: response, on: job.key) {
            // The proxy's answer is the error: its body is not read, and its connection closes.
            body.makeAsyncIterator().terminate()
            throw withMetrics(refusal, of: job, url: url)
        }
        // The body's end completes it (``StreamingResponse/metrics``).
        if job.record.isRecording {
            response.metrics.attempts = [
                job.finishedRecord.attempt(url: url, status: response.status, bodyBytes: nil, end: nil)
            ]
        }
        return StreamingResponse(head: response, body: body)
    }

    /// The job that streams `request`'s response, and the body stream its consumer reads. Made apart from
    /// ``stream(_:)``, whose frame the awaiting task keeps while the head is awaited, so that frame stays small.
    @inline(never)
    private func streamingJob(
        for request: TransferRequest, to httpURL: HTTPURL, route: ProxyRoute?
    ) throws(RequestError) -> (RequestJob, ResponseBodyStream) {
        let head = try HTTP1RequestEncoder.RequestHead(request)
        let target = try HTTP1RequestEncoder.target(
            of: httpURL.target, authority: request.built?.authority, tls: tlsConfiguration(for: httpURL)
        ).routed(through: route)
        // Nothing to read from the request when the body streams from the transfer.
        let inlineBody = request.body == nil ? head.bodyInRequest() : Data()
        let bodyLength = request.body.map { $0.length.map(Int.init) } ?? inlineBody.count
        let headBytes = try head.bytes(target: target, bodyLength: bodyLength)
        // The stream is made here, on the awaiting task, and only its continuation goes to the event loop.
        let (body, continuation) = ResponseBodyStream.makeStream(bufferLimit: request.bufferLimit)
        // The body's reader is made when the request is sent, again when it is sent again after a stale connection.
        var makeBodyReader: (@Sendable () throws -> RequestBodyReader?)?
        if request.body != nil {
            let transfer = request
            makeBodyReader = { try transfer.makeBodyReader() }
        }
        let job = RequestJob(
            key: connectionKey(target.key, for: request, unixSocket: httpURL.unixSocket), pool: try pool(),
            head: headBytes, body: inlineBody,
            makeBodyReader: makeBodyReader,
            bodyLength: bodyLength, method: head.method, idleTimeout: head.timeout,
            limits: limits,
            mode: .streaming(
                StreamOptions(url: httpURL.url, continuation: continuation, responseLimits: request.responseLimits)),
            recordsMetrics: configuration.recordsMetrics)
        return (job, body)
    }
}
