import Foundation
import RequestKit

/// A response as a cassette holds it, for redaction rules to rewrite before anything is written.
///
/// ```swift
/// var redaction = ReplayRedaction()
/// redaction.rules.append { _, response in
///     response?.headers.remove("X-Request-Signature")
/// }
/// ```
public struct RecordedResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, in the order received.
    public var headers: HTTPHeaders
    /// The whole body, as delivered (after any `Content-Encoding` was undone).
    public var body: Data

    /// Creates a recorded response.
    ///
    /// ```swift
    /// let response = RecordedResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("ok".utf8))
    /// ```
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The headers.
    ///   - body: The body.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
