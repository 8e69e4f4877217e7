import Foundation

/// The body of a request: bytes in memory, with the media type to announce when no `Content-Type` is set.
///
/// ```swift
/// parts.body = RequestBody(Data("hello".utf8), contentType: .text.charset("utf-8"))
/// ```
public struct RequestBody: Sendable {
    /// The bytes to send.
    public var data: Data
    /// The media type sent as `Content-Type` unless the request sets one itself.
    public var contentType: MediaType?

    /// Creates a body.
    ///
    /// ```swift
    /// let body = RequestBody(Data([1, 2, 3]), contentType: .octetStream)
    /// ```
    public init(_ data: Data, contentType: MediaType?) {
        self.data = data
        self.contentType = contentType
    }
}
