import RequestKitModel

/// Calls a handler as the request body is sent, with the bytes sent so far and the body's length.
///
/// The handler runs on the transport's thread, once per block (about 64 KiB), so keep it short. A body in
/// memory is reported once, when handed to the transport.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/upload")
///     Method(.post)
///     Body(file: videoURL)
///     UploadProgress { progress in print(progress.completedBytes, progress.totalBytes ?? -1) }
/// }
/// ```
public struct UploadProgress: RequestComponent {
    let handler: @Sendable (TransferProgress) -> Void

    /// Reports upload progress to `handler`.
    ///
    /// ```swift
    /// UploadProgress { print($0) }
    /// ```
    public init(_ handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.handler = handler
    }

    public func apply(to parts: inout RequestParts) {
        let previous = parts[option: UploadProgressKey.self]
        let handler = self.handler
        parts[option: UploadProgressKey.self] = { progress in
            previous?(progress)
            handler(progress)
        }
    }
}

/// The upload progress handlers set by ``UploadProgress``.
package enum UploadProgressKey: RequestOptionKey {
    package static let defaultValue: (@Sendable (TransferProgress) -> Void)? = nil
}
