import Foundation
import RequestKitModel

extension Body {
    /// Sends a file's contents, read from disk as they are sent (never loaded whole), with `Content-Length`.
    ///
    /// A missing or unreadable file is reported when the request is built.
    ///
    /// ```swift
    /// Request {
    ///     Url("http://127.0.0.1:8080/upload")
    ///     Method(.put)
    ///     Body(file: URL(fileURLWithPath: "/tmp/backup.tar"), contentType: "application/x-tar")
    /// }
    /// ```
    /// - Parameters:
    ///   - url: The file to send.
    ///   - contentType: The media type to announce; `application/octet-stream` by default.
    public init(file url: URL, contentType: MediaType = .octetStream) {
        if FileManager.default.isReadableFile(atPath: url.path), RequestBody.fileSize(url) != nil {
            self.init(RequestBody(file: url, contentType: contentType))
        } else {
            self.init(problem: RequestBody.unreadableFileProblem(url))
        }
    }
}
