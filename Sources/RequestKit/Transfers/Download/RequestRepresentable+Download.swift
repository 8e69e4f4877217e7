import Foundation

extension RequestRepresentable {
    /// Sends the request and streams the validated response body to a file, never holding it in memory.
    ///
    /// The body is written to a temporary file next to `destination` (same directory, so same file system),
    /// then renamed over `destination` in one atomic step once complete. On any failure (a dropped connection,
    /// a short body, cancellation, an unacceptable status) the temporary file is removed and `destination` is
    /// left as it was. `progress` runs as bytes are written, with `Content-Length` as the total when sent;
    /// ``DownloadProgress`` components are called too.
    ///
    /// With ``URLSessionTransport`` the body is written by a URLSession download task, on Linux as on Apple
    /// platforms, which keeps memory bounded (FoundationNetworking cannot pause a data task). Other transports
    /// go through ``Transport/stream(_:)``.
    ///
    /// ```swift
    /// let destination = URL(fileURLWithPath: "/tmp/archive.tar")
    /// let response = try await Request { Url("http://127.0.0.1:8080/large/1048576") }
    ///     .download(to: destination) { progress in print(progress) }
    /// print(response.status)  // 200 OK; the body is in the file
    /// ```
    /// - Parameters:
    ///   - destination: The file to create or replace.
    ///   - progress: Called with the bytes written so far.
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
        if let transport = (parts.transport ?? URLSessionTransport.shared) as? URLSessionTransport {
            return try await downloadWithTask(
                parts, transport: transport, temporary: temporary, destination: destination,
                progress: { value in
                    progress?(value)
                    report?(value)
                })
        }
        let streaming = try await stream()
        let total = streaming.expectedLength
        do {
            guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
                throw RequestError.transport(
                    CocoaError(.fileWriteNoPermission), detail: "cannot create \"\(temporary.path)\"")
            }
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            var written: Int64 = 0
            let start = TransferProgress(completedBytes: 0, totalBytes: total)
            progress?(start)
            report?(start)
            for try await chunk in streaming.body {
                try handle.write(contentsOf: chunk)
                written += Int64(chunk.count)
                let current = TransferProgress(completedBytes: written, totalBytes: total)
                progress?(current)
                report?(current)
            }
            if let total, written != total {
                throw RequestError.transport(
                    URLError(.networkConnectionLost), detail: "the body ended after \(written) of \(total) bytes")
            }
            try handle.synchronize()
            guard rename(temporary.path, destination.path) == 0 else {
                throw RequestError.transport(
                    POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
                    detail: "cannot move the download to \"\(destination.path)\"")
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw RequestExecutor.requestError(for: error).describingRequest(parts)
        }
        return streaming.head
    }

    /// The URLSession path: a download task writes the body to `temporary` as it arrives, then the head is
    /// validated and the file renamed over `destination`.
    private func downloadWithTask(
        _ parts: RequestParts, transport: URLSessionTransport, temporary: URL, destination: URL,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws(RequestError) -> Response {
        let urlRequest = try parts.makeURLRequest()
        let transfer = TransferRequest(
            urlRequest, body: parts.body, uploadProgress: parts[option: UploadProgressKey.self])
        do {
            let exchange = Exchange(parts, transport: transport)
            let operation: @Sendable () async throws -> Response = {
                try await exchange.perform(transfer, head: { $0 }) { adapted in
                    try await transport.streaming.download(adapted, into: temporary, progress: progress)
                }
            }
            var head: Response
            if let deadline = parts.resourceTimeout {
                head = try await RequestExecutor.withDeadline(seconds: deadline, clock: parts.clock, operation)
            } else {
                head = try await operation()
            }
            do {
                try await parts.validation.validate(head)
            } catch {
                let handle = try? FileHandle(forReadingFrom: temporary)
                head.body = (try? handle?.read(upToCount: 1 << 20)) ?? Data()
                try? handle?.close()
                throw request.callbacks.attachingErrorBody(to: error)
            }
            let size = RequestBody.fileSize(temporary) ?? 0
            if let expected = head.headers["Content-Length"].flatMap({ Int64($0) }),
                head.headers["Content-Encoding"] == nil,
                size != expected
            {
                throw RequestError.transport(
                    URLError(.networkConnectionLost), detail: "the body ended after \(size) of \(expected) bytes")
            }
            guard rename(temporary.path, destination.path) == 0 else {
                throw RequestError.transport(
                    POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
                    detail: "cannot move the download to \"\(destination.path)\"")
            }
            return head
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw RequestExecutor.requestError(for: error).describingRequest(parts)
        }
    }
}
