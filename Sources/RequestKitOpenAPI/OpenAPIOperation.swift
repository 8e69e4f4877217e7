#if OpenAPI
import Foundation
import HTTPTypes
import RequestKit
import RequestKitHTTPTypes

/// One operation of a generated client as a request component, applied after the client's defaults: its URL,
/// method and body, its header fields in place of the defaults' fields of the same names, and every status
/// accepted (the generated client decides what each one means).
struct OpenAPIOperation: RequestComponent {
    /// The server URL with the operation's path and query.
    let url: URL
    let method: HTTPMethod
    /// The operation's header fields, as the generated client set them.
    let headers: HTTPHeaders
    let body: RequestBody?

    /// The operation `request` (its path relative to `baseURL`) with `body`.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the base URL and the path make
    ///   no absolute http(s) URL.
    init(_ request: HTTPRequest, body: RequestBody?, baseURL: URL) throws(RequestError) {
        url = try Self.url(of: request.path ?? "/", relativeTo: baseURL)
        method = HTTPMethod(request.method.rawValue)
        headers = HTTPHeaders(converting: request.headerFields)
        self.body = body
    }

    func apply(to request: inout RequestParts) {
        request.url = url
        request.method = method
        for header in headers {
            request.headers.remove(header.name)
        }
        for header in headers {
            request.headers.add(header.name, header.value)
        }
        request.body = body
        request.validation = .none
    }

    /// `path` (with its query) appended to `baseURL`'s path, one slash between them.
    private static func url(of path: String, relativeTo baseURL: URL) throws(RequestError) -> URL {
        let absolute = baseURL.absoluteString.utf8
        var end = absolute.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? absolute.endIndex
        while end > absolute.startIndex, absolute[absolute.index(before: end)] == UInt8(ascii: "/") {
            end = absolute.index(before: end)
        }
        var joined = String(Substring(absolute[..<end]))
        if path.utf8.first != UInt8(ascii: "/") { joined += "/" }
        joined += path
        guard let url = URL(string: joined), let scheme = url.scheme, url.host != nil,
            ["http", "https"].contains(scheme.lowercased())
        else {
            throw RequestError.invalidRequest([
                RequestProblem(
                    .malformedURL,
                    "the server URL and the operation's path make no http(s) URL: "
                        + SensitiveData().redacting(joined))
            ])
        }
        return url
    }
}
#endif
