import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTP1Transport {
    /// Sends a request whose body may be read from files as it goes, and returns as soon as the response head
    /// arrives; the body then streams in pieces of up to 64 KiB, decompressed when the server compressed it.
    ///
    /// A body of known length is sent with `Content-Length`, one of unknown length with chunked coding. The
    /// connection's thread stops reading while the consumer's buffer is full (``TransferRequest/bufferLimit``),
    /// so a slow consumer slows the server down instead of filling memory; abandoning the stream or cancelling
    /// the consuming task closes the connection. A redirect is returned as it is.
    ///
    /// The body is bounded only by ``TransferRequest/responseLimits``: its
    /// ``ResponseLimits/maxStreamedBodyBytes`` (none by default) and, for a compressed body, its
    /// ``ResponseLimits/maxDecompressionRatio``. Past either, the stream fails with a ``RequestError`` of kind
    /// ``RequestError/Kind/responseTooLarge`` that keeps the response head, and the connection is closed.
    ///
    /// ```swift
    /// let response = try await HTTP1Transport.shared.stream(TransferRequest(URLRequest(url: logURL)))
    /// for try await piece in response { print(piece.count) }
    /// ```
    /// - Parameter request: The request, with its body and buffer limit.
    /// - Returns: The response head and its body stream.
    /// - Throws: ``RequestError``.
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        let url = try httpURL(of: request.urlRequest)
        if url.scheme?.lowercased() == "https" { return try await configuration.secureTransport.stream(request) }
        let (head, connection) = try await streamHead(request, url: url)
        return try streamBody(
            head, on: connection, isHeadRequest: request.urlRequest.httpMethod == "HEAD", url: url,
            idleTimeout: request.urlRequest.timeoutInterval, bufferLimit: request.bufferLimit,
            responseLimits: request.responseLimits)
    }

    /// Sends the request and reads the response head, returning the connection still leased.
    private func streamHead(
        _ request: TransferRequest, url: URL
    ) async throws -> (HTTP1ResponseHead, HTTP1Connection) {
        let target = try HTTP1RequestEncoder.target(of: url)
        let urlRequest = request.urlRequest
        let inlineBody = request.body == nil ? HTTP1RequestEncoder.body(of: urlRequest) : Data()
        let bodyLength = request.body.map { $0.length.map(Int.init) } ?? inlineBody.count
        let head = try HTTP1RequestEncoder.head(of: urlRequest, target: target, bodyLength: bodyLength)
        let idleTimeout = urlRequest.timeoutInterval
        return try await lease(target, request: urlRequest) { [limits] connection, _ in
            try connection.send(head: head, body: inlineBody, idleTimeout: idleTimeout)
            if let reader = try request.makeBodyReader() {
                try connection.send(bodyFrom: reader, length: bodyLength)
            }
            return try connection.receiveHead(limits: limits)
        }
    }

    /// Starts the connection's thread pumping the body into a bounded stream, and returns the response at once.
    private func streamBody(
        _ head: HTTP1ResponseHead, on connection: HTTP1Connection, isHeadRequest: Bool, url: URL,
        idleTimeout: Double, bufferLimit: Int, responseLimits: ResponseLimits
    ) throws -> StreamingResponse {
        let framing: HTTP1ResponseHead.Framing
        let contentDecoder: HTTP1ContentDecoder?
        let bodyLimit = responseLimits.maxStreamedBodyBytes ?? .max
        do {
            framing = try head.framing(isHeadRequest: isHeadRequest)
            contentDecoder =
                framing == .none
                ? nil
                : try HTTP1ContentDecoder(
                    codings: head.tokens(of: "Content-Encoding"), maxBytes: bodyLimit,
                    maxRatio: responseLimits.maxDecompressionRatio,
                    ratioAllowance: ResponseLimits.decompressionAllowance)
        } catch {
            pool.release(connection, isReusable: false)
            throw RequestError.transport(error, detail: error.reason)
        }
        let (stream, continuation) = ResponseBodyStream.makeStream(bufferLimit: bufferLimit)
        var bodyLimits = limits.body
        bodyLimits.maxBodyBytes = bodyLimit
        let pump = HTTP1BodyPump(
            connection: connection, pool: pool, head: head, url: url,
            decoder: HTTP1BodyDecoder(framing: framing, limits: bodyLimits),
            contentDecoder: contentDecoder, continuation: continuation, idleTimeout: idleTimeout,
            bodyLimit: bodyLimit, maxRatio: responseLimits.maxDecompressionRatio)
        connection.worker.async { pump.run() }
        return StreamingResponse(head: Self.response(head, url: url), body: stream)
    }
}

/// Moves a response body from a connection into a ``ResponseBodyStream`` on the connection's thread, waiting
/// whenever the stream's buffer is full, and hands the connection back to the pool at the end.
private final class HTTP1BodyPump: @unchecked Sendable {
    // Safe: `decoder` and `contentDecoder` are used only by `run()`, which runs once on the connection's own
    // thread; `isReleased` is only touched while holding `lock`; every other property is a `let` of a Sendable type
    // or the lock-guarded connection and pool.
    let connection: HTTP1Connection
    let pool: HTTP1ConnectionPool
    let head: HTTP1ResponseHead
    let url: URL
    var decoder: HTTP1BodyDecoder
    let contentDecoder: HTTP1ContentDecoder?
    let continuation: ResponseBodyStream.Continuation
    let idleTimeout: Double
    let bodyLimit: Int
    let maxRatio: Int
    let demand = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var isReleased = false

    init(
        connection: HTTP1Connection, pool: HTTP1ConnectionPool, head: HTTP1ResponseHead, url: URL,
        decoder: HTTP1BodyDecoder, contentDecoder: HTTP1ContentDecoder?, continuation: ResponseBodyStream.Continuation,
        idleTimeout: Double, bodyLimit: Int, maxRatio: Int
    ) {
        self.connection = connection
        self.pool = pool
        self.head = head
        self.url = url
        self.decoder = decoder
        self.contentDecoder = contentDecoder
        self.continuation = continuation
        self.idleTimeout = idleTimeout
        self.bodyLimit = bodyLimit
        self.maxRatio = maxRatio
    }

    func run() {
        let demand = demand
        let connection = connection
        continuation.onDemand = { demand.signal() }
        continuation.onTermination = { [weak self] in
            // A consumer that leaves after the body was read must not cancel the connection's next request (once
            // the body is read this pump is released, or at least marked so).
            self?.cancelUnlessReleased()
            demand.signal()
        }
        do {
            while let piece = try connection.receiveBodyPiece(&decoder) {
                let plain = try contentDecoder?.decode(piece) ?? piece
                if plain.isEmpty { continue }
                if !continuation.yield(plain) { demand.wait() }
                if continuation.isTerminated { throw CancellationError() }
            }
            try contentDecoder?.finish()
            continuation.finish()
            release(isReusable: connection.isReusable(after: head, decoder))
        } catch {
            let failure: RequestError
            if connection.wasCancelled || error is CancellationError {
                failure = RequestError.cancelled(underlyingError: error)
            } else if let tooLarge = HTTP1ResponseTooLarge(error, head: head, bodyLimit: bodyLimit, maxRatio: maxRatio)
            {
                failure = tooLarge.requestError(url: url)
            } else {
                failure = HTTP1Transport.requestError(for: error, idleTimeout: idleTimeout, key: connection.key)
            }
            continuation.finish(throwing: failure)
            release(isReusable: false)
        }
    }

    private func cancelUnlessReleased() {
        lock.withLock {
            if !isReleased { connection.cancel() }
        }
    }

    private func release(isReusable: Bool) {
        lock.withLock { isReleased = true }
        pool.release(connection, isReusable: isReusable)
    }
}
