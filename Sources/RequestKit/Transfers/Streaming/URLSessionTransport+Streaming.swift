import Foundation

extension URLSessionTransport {
    /// Streams the request body from memory or disk and returns at the response head; the body arrives
    /// through a data delegate (on Linux too), and the task is suspended while the consumer's buffer is full.
    ///
    /// A file or multipart body is sent with `Content-Length` from its length, read a block at a time. Cancelling
    /// the calling task or the consumer's task cancels the URLSession task, which closes the connection.
    ///
    /// ```swift
    /// let streaming = try await URLSessionTransport.shared.stream(TransferRequest(urlRequest))
    /// for try await chunk in streaming.body { print(chunk.count) }
    /// ```
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        try await streaming.stream(request)
    }
}
