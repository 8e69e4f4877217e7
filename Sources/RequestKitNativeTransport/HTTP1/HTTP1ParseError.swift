import Foundation

/// Why ``NativeTransport`` could not read a server's response: the underlying error of a
/// ``RequestError`` of kind `.transport`.
///
/// The server controls every byte it sends, so each limit and each rule of HTTP/1.1 framing that a response
/// breaks is reported as a reason rather than trusted.
///
/// ```swift
/// do {
///     _ = try await Request { Url("http://127.0.0.1:8080/"); Using(NativeTransport.shared) }.send()
/// } catch let error as RequestError {
///     if let parseError = error.underlyingError as? HTTP1ParseError {
///         print(parseError.reason)  // e.g. "invalid status line"
///     }
/// }
/// ```
public struct HTTP1ParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the response, in a few words.
    public let reason: String

    /// Creates an error with a reason.
    ///
    /// ```swift
    /// let error = HTTP1ParseError("invalid status line")
    /// ```
    /// - Parameter reason: What was wrong.
    public init(_ reason: String) { self.reason = reason }

    /// The reason, prefixed so that it reads as a sentence in a log.
    public var description: String { "malformed HTTP/1.1 response: \(reason)" }

    static let invalidStatusLine = Self("invalid status line")
    static let unsupportedVersion = Self("unsupported HTTP version")
    static let headTooLarge = Self("response head larger than the limit")
    static let tooManyHeaders = Self("more header fields than the limit")
    static let invalidHeaderField = Self("invalid header field")
    static let obsoleteLineFolding = Self("obsolete header line folding")
    static let invalidContentLength = Self("invalid Content-Length")
    static let conflictingContentLength = Self("conflicting Content-Length values")
    static let unsupportedTransferEncoding = Self("unsupported Transfer-Encoding")
    static let contentLengthWithTransferEncoding = Self("both Content-Length and Transfer-Encoding are present")
    static let invalidChunkSize = Self("invalid chunk size")
    static let chunkSizeTooLarge = Self("chunk size larger than the limit")
    static let invalidChunkTerminator = Self("chunk data not followed by CRLF")
    static let trailersTooLarge = Self("trailer section larger than the limit")
    static let truncatedBody = Self("connection closed before the end of the body")
    static let truncatedHead = Self("connection closed in the middle of the response head")
    static let unconfirmedEnd = Self(
        "the server closed the connection without a TLS close_notify, so a body delimited by the close may be truncated"
    )
    static let bodyTooLarge = Self("response body larger than the limit")
    static let decompressionRatioExceeded = Self("compressed response body expands more than the limit allows")
    static let corruptCompressedBody = Self("corrupt compressed body")
    static let truncatedCompressedBody = Self("truncated compressed body")
    static func unsupportedContentEncoding(_ coding: String) -> Self { Self("unsupported Content-Encoding \(coding)") }
    static let tooManyInformationalResponses = Self("too many informational (1xx) responses")
    static let switchedProtocols = Self(
        "the server answered 101 Switching Protocols: the connection no longer speaks HTTP/1.1, so no response can be "
            + "read from it")
}
