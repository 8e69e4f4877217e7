import Foundation
import RequestKitModel

extension Body {
    /// The same body compressed with `coding` when the request is built, sent with `Content-Encoding` naming it;
    /// `Content-Type` stays the body's own. Only send it to a server that accepts that coding in requests.
    ///
    /// A body read from a file, or a coding this platform lacks (``ContentCoding/isAvailable``), is reported when
    /// the request is built: the body is never sent uncompressed under a `Content-Encoding` that says otherwise.
    ///
    /// ```swift
    /// Request {
    ///     Url("http://127.0.0.1:8080/logs")
    ///     Method(.post)
    ///     Body(logLines, contentType: .text).compressed(.gzip)
    /// }
    /// ```
    /// - Parameter coding: The coding: `.gzip` and `.deflate` everywhere, `.brotli` and `.zstd` on Linux.
    /// - Returns: The body, to be compressed.
    public func compressed(_ coding: ContentCoding) -> Body {
        var body = self
        body.coding = coding
        return body
    }

    /// `body` compressed with `coding`, or the problem that stopped it.
    static func compress(_ body: RequestBody, with coding: ContentCoding) -> Checked<RequestBody> {
        guard body.isInMemory else {
            return .invalid(
                RequestProblem(
                    .bodyEncodingFailed, "a body read from a file cannot be compressed as it is sent; compress the file"
                ))
        }
        do {
            return .valid(
                RequestBody(try ContentCompressor.compress(body.data, with: coding), contentType: body.contentType))
        } catch {
            return .invalid(RequestProblem(.bodyEncodingFailed, "the body could not be compressed: \(error)"))
        }
    }
}
