import Foundation

extension RequestExecutor {
    /// Whether `parts` must go through ``Transport/stream(_:)``: a body read from files, or progress to report.
    static func needsStreaming(_ parts: RequestParts) -> Bool {
        parts.body.map { !$0.isInMemory } == true || parts[option: UploadProgressKey.self] != nil
            || parts[option: DownloadProgressKey.self] != nil
    }

    /// Builds and streams `parts` through the client features (interceptors, cookies, monitors, redirects; no
    /// retries), returning at the response head. The total deadline covers the head only.
    static func stream(
        _ parts: RequestParts, bufferLimit: Int = TransferRequest.defaultBufferLimit
    ) async throws(RequestError) -> StreamingResponse {
        let urlRequest = try parts.makeURLRequest()
        let exchange = Exchange(parts, transport: parts.transport ?? URLSessionTransport.shared)
        let transfer = TransferRequest(
            urlRequest, body: parts.body, uploadProgress: parts[option: UploadProgressKey.self],
            bufferLimit: bufferLimit)
        do {
            if let deadline = parts.resourceTimeout {
                return try await withDeadline(seconds: deadline, clock: parts.clock) {
                    try await exchange.stream(transfer)
                }
            }
            try Task.checkCancellation()
            return try await exchange.stream(transfer)
        } catch {
            throw requestError(for: error).describingRequest(parts)
        }
    }

    /// Streams `parts` and collects the body within the request's ``ResponseLimits/maxBodyBytes``, reporting
    /// download progress: `send` for streamed requests. Leaving the loop at the limit closes the connection.
    static func sendStreaming(_ parts: RequestParts) async throws(RequestError) -> Response {
        let streaming = try await stream(parts)
        let progress = parts[option: DownloadProgressKey.self]
        var response = streaming.head
        let total = streaming.expectedLength
        var body = Data()
        var limiter = ResponseBodyLimiter(parts[option: ResponseLimitsKey.self], isBuffered: true)
        do {
            progress?(TransferProgress(completedBytes: 0, totalBytes: total))
            for try await chunk in streaming.body {
                try limiter.add(chunk.count, response: response)
                body.append(chunk)
                progress?(TransferProgress(completedBytes: Int64(body.count), totalBytes: total))
            }
        } catch {
            throw requestError(for: error).describingRequest(parts)
        }
        response.body = body
        return response
    }
}
