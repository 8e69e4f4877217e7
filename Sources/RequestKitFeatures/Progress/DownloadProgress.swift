import RequestKitModel

/// Calls a handler as the response body arrives, with the bytes received so far and `Content-Length` when sent.
///
/// It applies to `send()`, `data()` and the other buffered calls as well as to `download(to:)`; it runs on the
/// task receiving the body, once per chunk.
///
/// ```swift
/// let data = try await Request {
///     Url("http://127.0.0.1:8080/large/10485760")
///     DownloadProgress { progress in print(progress.fractionCompleted ?? 0) }
/// }.data()
/// ```
public struct DownloadProgress: RequestComponent {
    let handler: @Sendable (TransferProgress) -> Void

    /// Reports download progress to `handler`.
    ///
    /// ```swift
    /// DownloadProgress { print($0) }
    /// ```
    public init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    public func apply(to parts: inout RequestParts) {
        let previous = parts[option: DownloadProgressKey.self]
        let handler = self.handler
        parts[option: DownloadProgressKey.self] = { progress in
            previous?(progress)
            handler(progress)
        }
    }
}

/// The download progress handlers set by ``DownloadProgress``.
package enum DownloadProgressKey: RequestOptionKey {
    package static let defaultValue: (@Sendable (TransferProgress) -> Void)? = nil
}
