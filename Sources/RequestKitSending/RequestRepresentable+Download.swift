import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

extension RequestRepresentable {
    /// Sends the request and streams the validated response body to a file, never holding it in memory.
    ///
    /// The body is written to a temporary file next to `destination` (same directory, so same file system),
    /// then renamed over `destination` in one atomic step once complete. On any failure (a dropped connection,
    /// a short body, cancellation, an unacceptable status) the temporary file is removed and `destination` is
    /// left as it was. `progress` runs as each chunk goes to the file, with `Content-Length` as the total when sent;
    /// ``DownloadProgress`` components are called too. The file is created, written, flushed and renamed on a queue
    /// of its own, never on a thread of Swift's cooperative pool.
    ///
    /// The body streams through the request pipeline like every other verb's (redirects, retries before the
    /// first byte is written, the deadline until the head arrives), at most about 1 MiB of it in memory at a time.
    ///
    /// ```swift
    /// let destination = URL(fileURLWithPath: "/tmp/archive.tar")
    /// let response = try await Request { Url("http://127.0.0.1:8080/large/1048576") }
    ///     .download(to: destination) { progress in print(progress) }
    /// print(response.status)  // 200 OK; the body is in the file
    /// ```
    /// - Parameters:
    ///   - destination: The file to create or replace.
    ///   - progress: Called with the bytes handed to the file so far.
    /// - Returns: The response head (its `body` is empty).
    /// - Throws: ``RequestError``; a file that cannot be written is a transport failure naming the file.
    @discardableResult
    public func download(
        to destination: URL, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(RequestError) -> Response {
        let parts = request.parts()
        let report = parts[option: DownloadProgressKey.self]
        let temporary = destination.deletingLastPathComponent().appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString).download")
        let streaming = try await stream()
        let total = streaming.expectedLength
        var file: DownloadFile?
        do {
            // The file is created, written, flushed and renamed on a queue of its own, off the cooperative pool.
            let opened = try await DownloadFile.create(at: temporary)
            file = opened
            var written: Int64 = 0
            let start = TransferProgress(completedBytes: 0, totalBytes: total)
            progress?(start)
            report?(start)
            for try await chunk in streaming.body {
                try await opened.write(chunk)
                written += Int64(chunk.count)
                let current = TransferProgress(completedBytes: written, totalBytes: total)
                progress?(current)
                report?(current)
            }
            if let total, written != total, streaming.head.headers["Content-Encoding"] == nil {
                throw RequestError.transport(
                    URLError(.networkConnectionLost), detail: "the body ended after \(written) of \(total) bytes")
            }
            try await opened.finish(movingTo: destination)
        } catch {
            await file?.discard()
            throw RequestError.wrapping(error).describingRequest(parts)
        }
        return streaming.head
    }
}
