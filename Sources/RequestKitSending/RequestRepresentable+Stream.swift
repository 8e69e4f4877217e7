import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitPipeline

extension RequestRepresentable {
    /// Sends the request, validates the response head and returns the body as it arrives, chunk by chunk.
    ///
    /// The body is never held whole: at most about `bufferLimit` bytes wait unread in memory, and the transfer
    /// is held off while the buffer is full (see ``ResponseBodyStream``). Cancelling the consuming task, or leaving the loop
    /// early, closes the connection. An unacceptable status throws, with up to 1 MiB of the error body kept.
    ///
    /// ```swift
    /// let response = try await Request { Url("http://127.0.0.1:8080/stream/10") }.stream()
    /// for try await line in response.lines { print(line) }
    /// ```
    /// - Parameter bufferLimit: How many unread bytes may be buffered; 1 MiB by default.
    /// - Returns: The response head and its body.
    /// - Throws: ``RequestError``: invalid request, transport failure, timeout, cancellation, unacceptable status.
    public func stream(
        bufferLimit: Int = TransferRequest.defaultBufferLimit
    ) async throws(RequestError)
        -> StreamingResponse
    {
        let parts = request.parts()
        let streaming = try await RequestExecutor.stream(parts, bufferLimit: bufferLimit)
        try await validate(streaming, parts: parts)
        return streaming
    }

    /// Validates a streamed response's head; one that fails is read (up to 1 MiB) for the error. Out of line, apart
    /// from ``stream(bufferLimit:)``, whose frame a held stream's task keeps: that frame stays small.
    @inline(never)
    private func validate(_ streaming: StreamingResponse, parts: RequestParts) async throws(RequestError) {
        do {
            try await parts.validation.validate(streaming.head)
        } catch {
            throw await validationFailure(error, of: streaming, parts: parts)
        }
    }

    /// The error for a streamed response that failed validation, with (up to 1 MiB of) its body, which is read
    /// for it.
    private func validationFailure(
        _ error: RequestError, of streaming: StreamingResponse, parts: RequestParts
    ) async -> RequestError {
        var response = streaming.head
        response.body = (try? await streaming.collect(upTo: 1 << 20)) ?? Data()
        var failure = error
        do {
            try await parts.validation.validate(response)
        } catch {
            failure = error
        }
        return request.callbacks.attachingErrorBody(to: failure).describingRequest(parts)
    }
}
