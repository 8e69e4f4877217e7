import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as a cassette holds it: what replay matches a sent request against, and what redaction rules rewrite
/// before anything is written.
///
/// ```swift
/// var redaction = ReplayRedaction()
/// redaction.rules.append { request, _ in
///     request.headers.set("X-Session", "<session>")
/// }
/// ```
public struct RecordedRequest: Sendable {
    /// The method, as sent (`GET`, `POST`).
    public var method: String
    /// The full URL.
    public var url: URL
    /// The headers the request carried (those the transport adds itself, such as `Host`, are not among them).
    public var headers: HTTPHeaders
    /// The body; empty when there is none, or when the body was sent from a file and recorded by digest.
    public var body: Data
    /// For a body sent from a file and recorded by digest: `sha256:<hex>` and the size, which replay compares
    /// instead of the content.
    var fileDigest: FileDigest?

    /// A file body's digest and size.
    struct FileDigest: Sendable, Hashable {
        var sha256: String
        var size: Int
    }

    /// Creates a recorded request.
    ///
    /// ```swift
    /// let request = RecordedRequest(method: "GET", url: URL(string: "http://127.0.0.1:8080/todos")!)
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    ///   - headers: The headers.
    ///   - body: The body.
    public init(method: String, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A `URLRequest`'s method, URL, headers (sorted by name, as `URLRequest` keeps no order) and `httpBody`.
    init?(_ urlRequest: URLRequest) {
        guard let url = urlRequest.url else { return nil }
        let fields = (urlRequest.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        self.init(
            method: urlRequest.httpMethod ?? "GET", url: url,
            headers: HTTPHeaders(fields.map { HTTPHeader(name: $0.key, value: $0.value) }),
            body: urlRequest.httpBody ?? Data())
    }
}
