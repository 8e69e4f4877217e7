#if OpenAPI
import Foundation
import HTTPTypes
import RequestKit
import RequestKitHTTPTypes

/// One operation of a generated client as a request component, applied after the client's defaults: its URL,
/// method and body, its header fields in place of the defaults' fields of the same names, and every status
/// accepted (the generated client decides what each one means).
struct OpenAPIOperation: RequestComponent {
    /// The operation's URL, method and header fields, converted by RequestKitHTTPTypes.
    let parts: RequestParts
    let body: RequestBody?

    /// The operation `request` (its path relative to `baseURL`) with `body`.
    ///
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the base URL and the path make
    ///   no absolute URL, or the method or a field is not valid in HTTP.
    init(_ request: HTTPRequest, body: RequestBody?, baseURL: URL) throws(RequestError) {
        var resolved = request
        let url = try Self.url(of: request.path ?? "/", relativeTo: baseURL)
        let (authority, pathAndQuery) = Self.split(url)
        resolved.scheme = url.scheme
        resolved.authority = authority
        resolved.path = pathAndQuery
        var parts = try RequestParts(resolved)
        // The authority of HTTPRequest leaves out a user and password; the URL keeps them.
        parts.url = url
        self.parts = parts
        self.body = body
    }

    func apply(to request: inout RequestParts) {
        request.url = parts.url
        request.method = parts.method
        for name in Set(parts.headers.map { $0.name.lowercased() }) {
            request.headers.remove(name)
        }
        for header in parts.headers {
            request.headers.add(header.name, header.value)
        }
        request.body = body
        request.validation = .none
    }

    /// `path` (with its query) appended to `baseURL`'s path, one slash between them.
    private static func url(of path: String, relativeTo baseURL: URL) throws(RequestError) -> URL {
        var base = baseURL.absoluteString
        if let query = base.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            base = String(base[..<query])
        }
        while base.hasSuffix("/") { base.removeLast() }
        let joined = base + (path.hasPrefix("/") ? path : "/" + path)
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

    /// `url`'s host and port as they are written in it (without a user or password), and the rest: its path and
    /// query, percent-encoded as they are written.
    private static func split(_ url: URL) -> (authority: String, pathAndQuery: String) {
        let afterScheme = url.absoluteString.dropFirst((url.scheme?.count ?? 0) + 3)
        let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let rest = afterScheme.dropFirst(authority.count)
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return (String(host), rest.isEmpty ? "/" : String(rest))
    }
}
#endif
