import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestParts {
    /// The idle timeout used when no `Timeout` is set, in seconds.
    public static let defaultTimeout: Double = 60

    /// The final URL: the `Url` (resolved against a client's base URL), then the `Path` segments, then the
    /// query already in the URL followed by every `Query` item.
    ///
    /// ```swift
    /// let url = try parts.resolvedURL()
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` listing what is wrong.
    public func resolvedURL() throws(RequestError) -> URL {
        var problems: [RequestProblem] = []
        let url = resolveURL(into: &problems).url
        guard let url, problems.isEmpty else { throw RequestError.invalidRequest(self.problems + problems) }
        return url
    }

    /// Validates everything and builds the Foundation request.
    ///
    /// ```swift
    /// let urlRequest = try parts.makeURLRequest()
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest``, listing every problem.
    public func makeURLRequest() throws(RequestError) -> URLRequest {
        try makeCheckedRequest().makeURLRequest()
    }

    /// The request built and checked (``BuiltRequest``), which the pipeline hands to the transport: a `URLRequest` is
    /// made from it only when one is asked for (``makeURLRequest()``).
    package func makeCheckedRequest() throws(RequestError) -> BuiltRequest {
        var problems = self.problems
        let (url, authority) = resolveURL(into: &problems)

        // GET, the default, is a token: only another method needs the check.
        if method != .get, !method.isValid {
            problems.append(
                RequestProblem(.invalidMethod, "the method \"\(method.rawValue)\" is not a valid HTTP token"))
        }
        var headers = self.headers
        if let body {
            if method == .get || method == .head {
                problems.append(
                    RequestProblem(.bodyNotAllowed, "a \(method.rawValue) request cannot carry a body"))
            }
            if !headers.contains("Content-Type"), let type = body.contentType {
                headers.set("Content-Type", type.description)
            }
            if let declared = headers["Content-Length"], let length = body.length, declared != String(length) {
                problems.append(
                    RequestProblem(
                        .invalidComponent,
                        "Content-Length says \(declared) but the body has \(length) bytes"))
            }
        } else if let declared = headers["Content-Length"], declared != "0" {
            // No transport sends a length without a body: the header would be shown (cURL) but never sent.
            problems.append(
                RequestProblem(.invalidComponent, "Content-Length says \(declared) but the request has no body"))
        }

        for field in headers {
            problems += RequestProblem.header(name: field.name, value: field.value)
        }
        // A URL in the plain form has no credentials; any other has them moved to `Authorization`.
        let sent = url.map { url in
            authority != nil ? url : Self.movingCredentials(of: url, into: &headers, problems: &problems)
        }
        guard let url = sent, problems.isEmpty else { throw RequestError.invalidRequest(problems) }
        // No limit (`.infinity`) and huge limits become a finite one that never expires in practice, which every
        // transport can hold without an overflowing conversion.
        let timeout = min(timeout ?? Self.defaultTimeout, 1e9)
        return BuiltRequest(
            url: url, authority: authority, method: method.sentForm, headers: headers, timeout: timeout,
            body: body.flatMap { $0.isInMemory ? $0.data : nil })
    }

    /// The URL without user name and password, which become `Authorization: Basic` (RFC 7617): the one place URL
    /// credentials are handled, so every transport sends them the same way and none drops them. A user name with
    /// `:`, or credentials in the URL of a request that sets `Authorization` itself, is a problem instead.
    private static func movingCredentials(
        of url: URL, into headers: inout HTTPHeaders, problems: inout [RequestProblem]
    ) -> URL {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            components.user != nil || components.password != nil
        else { return url }
        let user = components.user ?? ""
        let password = components.password ?? ""
        components.user = nil
        components.password = nil
        if headers.contains("Authorization") {
            problems.append(
                RequestProblem(
                    .invalidComponent, "the URL has credentials and the request sets Authorization; keep one of them"))
        } else if user.contains(":") {
            problems.append(
                RequestProblem(
                    .invalidComponent, "the user name in the URL contains \":\", which basic auth cannot send"))
        } else {
            headers.set("Authorization", HTTPSyntax.basicCredentials(username: user, password: password))
        }
        return components.url ?? url
    }

    /// Resolves the URL, appending problems: nil when there is no usable URL, and its authority when that is in the
    /// plain form of ``PlainURLAuthority`` (which has no credentials).
    private func resolveURL(into problems: inout [RequestProblem]) -> (url: URL?, authority: PlainURLAuthority?) {
        if urlCount > 1 {
            problems.append(RequestProblem(.multipleURLs, "the request has \(urlCount) Url components; it needs one"))
        }
        guard let written = url ?? self[option: BaseURLKey.self] else {
            if urlCount == 0 {
                problems.append(RequestProblem(.missingURL, "the request has no Url"))
            }
            return (nil, nil)
        }
        let base: URL
        let port: Int?
        let authority = PlainURLAuthority(written)
        if let authority {
            // http or https, with a host as written that needs no decoding: only the port remains to check.
            (base, port) = (written, authority.port)
        } else {
            guard let checked = checkedBase(written, into: &problems) else { return (nil, nil) }
            (base, port) = (checked, checked.port)
        }
        if let port, !(1...65535).contains(port) {
            problems.append(RequestProblem(.malformedURL, "the URL \"\(base.absoluteString)\" has port \(port)"))
            return (nil, nil)
        }
        // Path segments and query items extend the URL's text after its authority, which they leave as it is.
        if pathSegments.isEmpty && queryItems.isEmpty { return (base, authority) }
        return (extended(base, into: &problems), authority)
    }

    /// `base` (resolved against a client's base URL when it has no scheme) when it is an http or https URL (or an
    /// http+unix or https+unix one, whose host is a socket's path) with a usable host, read with Foundation's accessors; nil, with a problem appended, otherwise.
    private func checkedBase(_ written: URL, into problems: inout [RequestProblem]) -> URL? {
        var base = written
        var baseScheme = base.scheme
        if baseScheme == nil, let baseURL = self[option: BaseURLKey.self] {
            base = Self.join(baseURL, base.absoluteString)
            baseScheme = base.scheme
        }
        guard let scheme = baseScheme, HTTPSyntax.isRequestScheme(scheme) else {
            let scheme = baseScheme.map { "\"\($0)\"" } ?? "none"
            problems.append(
                RequestProblem(
                    .unsupportedScheme,
                    "the URL \"\(base.absoluteString)\" has scheme \(scheme); only http, https, http+unix and https+unix are supported"
                ))
            return nil
        }
        // The host as written: whether it is empty needs no percent-decoding.
        guard let host = base.host(percentEncoded: true), !host.isEmpty else {
            problems.append(RequestProblem(.malformedURL, "the URL \"\(base.absoluteString)\" has no host"))
            return nil
        }
        // A percent-encoded host must decode to text (`%80` alone does not), or no transport can name it.
        if host.utf8.contains(UInt8(ascii: "%")), (base.host ?? "").isEmpty {
            problems.append(
                RequestProblem(
                    .malformedURL,
                    "the URL \"\(base.absoluteString)\" has a host whose percent-encoding is not UTF-8 text"))
            return nil
        }
        return base
    }

    /// `base` with the `Path` segments and `Query` items added; nil, with a problem appended, when the result is not
    /// a URL.
    private func extended(_ base: URL, into problems: inout [RequestProblem]) -> URL? {
        var text = base.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        var query: String?
        if let mark = text.firstIndex(of: "?") {
            query = String(text[text.index(after: mark)...])
            text = String(text[..<mark])
        }
        if !pathSegments.isEmpty {
            if text.hasSuffix("/") { text.removeLast() }
            text += "/" + pathSegments.joined(separator: "/")
        }
        if !queryItems.isEmpty {
            let encoded = queryItems.map { item in
                item.value.map { "\(HTTPSyntax.percentEncoded(item.name))=\(HTTPSyntax.percentEncoded($0))" }
                    ?? HTTPSyntax.percentEncoded(item.name)
            }
            .joined(separator: "&")
            query = query.map { $0.isEmpty ? encoded : "\($0)&\(encoded)" } ?? encoded
        }
        if let query { text += "?" + query }
        text += fragment
        guard let url = URL(string: text) else {
            problems.append(RequestProblem(.malformedURL, "the URL \"\(text)\" is malformed"))
            return nil
        }
        return url
    }

    /// Joins a base URL and a relative reference by appending, so `http://h/api` + `users` and
    /// `http://h/api/` + `/users` both give `http://h/api/users`. A query in the base is kept, followed by any
    /// query in the reference: `http://h/api?key=1` + `users?page=2` gives `http://h/api/users?key=1&page=2`.
    static func join(_ base: URL, _ relative: String) -> URL {
        var text = base.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        var queries: [String] = []
        if let mark = text.firstIndex(of: "?") {
            queries.append(String(text[text.index(after: mark)...]))
            text = String(text[..<mark])
        }
        var tail = Substring(relative)
        if let hash = tail.firstIndex(of: "#") {
            fragment = String(tail[hash...])
            tail = tail[..<hash]
        }
        if let mark = tail.firstIndex(of: "?") {
            queries.append(String(tail[tail.index(after: mark)...]))
            tail = tail[..<mark]
        }
        while text.hasSuffix("/") { text.removeLast() }
        text += "/" + tail.drop { $0 == "/" }
        let query = queries.filter { !$0.isEmpty }.joined(separator: "&")
        if !query.isEmpty { text += "?" + query }
        return URL(string: text + fragment) ?? base
    }

    /// A name with control characters made visible, for messages.
    package static func escaped(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r": result += "\\r"
            case "\n": result += "\\n"
            case "\0": result += "\\0"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// The base URL a ``Client`` resolves relative requests against.
package enum BaseURLKey: RequestOptionKey {
    package static let defaultValue: URL? = nil
}

extension String {
    /// The string with leading zeros up to `width` characters.
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
