#if HTTPTypes
import Foundation
import HTTPTypes
import RequestKit

extension HTTPRequest {
    /// The request `parts` describe, as swift-http-types' `HTTPRequest`: the method, the pseudo-header fields of the
    /// resolved URL (`:scheme`, `:authority` as host and port, `:path` with the query, percent-encoded as sent) and
    /// every header field, in order, repeated names kept.
    ///
    /// The body, the timeouts and the other options have no place in an `HTTPRequest`; nor has a URL's user and
    /// password, which `:authority` leaves out.
    ///
    /// ```swift
    /// let parts = Request { Url("https://api.example.com/users"); Query("page", value: "2") }.parts()
    /// let request = try HTTPRequest(parts)  // GET https://api.example.com/users?page=2
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest``: the URL does not resolve, the
    ///   method is not a token, or a field's name or value is not valid in HTTP.
    public init(_ parts: RequestParts) throws(RequestError) {
        let url = try parts.resolvedURL()
        guard let method = HTTPRequest.Method(parts.method.rawValue) else {
            throw RequestError.invalidRequest([
                RequestProblem(.invalidMethod, "the method \(parts.method.rawValue.debugDescription) is not a token")
            ])
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let host = components.host,
            !host.isEmpty
        else {
            throw RequestError.invalidRequest([
                RequestProblem(.malformedURL, "the URL \(SensitiveData().redacting(url.absoluteString)) has no host")
            ])
        }
        let authority =
            components.port.map { "\(components.percentEncodedHost ?? host):\($0)" }
            ?? (components.percentEncodedHost ?? host)
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        self.init(
            method: method, scheme: components.scheme, authority: authority, path: path,
            headerFields: try HTTPFields(converting: parts.headers))
    }
}

extension RequestParts {
    /// The parts of swift-http-types' `request`: its URL (from `:scheme`, `:authority` and `:path`), method and
    /// header fields, in order, repeated names kept. ``HTTPRequest/init(_:)`` gives back the same request.
    ///
    /// ```swift
    /// var parts = try RequestParts(HTTPRequest(method: .get, scheme: "https", authority: "example.com", path: "/"))
    /// parts.timeout = 10
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the pseudo-header fields do not
    ///   make an absolute URL (a request in authority form or asterisk form, say).
    public init(_ request: HTTPRequest) throws(RequestError) {
        guard let scheme = request.scheme, let authority = request.authority, !authority.isEmpty,
            let url = URL(string: "\(scheme)://\(authority)\(request.path ?? "/")"), url.host != nil
        else {
            let shown = "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
            throw RequestError.invalidRequest([
                RequestProblem(.malformedURL, "the request's pseudo-header fields make no absolute URL: \(shown)")
            ])
        }
        self.init()
        self.url = url
        method = HTTPMethod(request.method.rawValue)
        headers = HTTPHeaders(converting: request.headerFields)
    }
}

extension HTTPResponse {
    /// `response` as swift-http-types' `HTTPResponse`: its status (with the standard reason phrase, the only one a
    /// ``Response`` keeps) and every header field, in order, repeated names kept. The body stays in the response.
    ///
    /// ```swift
    /// let response = try await Request { Url("http://127.0.0.1:8080/todos/1") }.send()
    /// let head = try HTTPResponse(response)
    /// ```
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/validationFailed`` when the status is not three digits
    ///   or a field is not valid in HTTP (a response made by hand; one received has been checked).
    public init(_ response: Response) throws(RequestError) {
        let code = response.statusCode
        guard (100...999).contains(code) else {
            throw RequestError.validationFailed(
                response, reason: "the status \(code) is not three digits, which HTTPResponse requires")
        }
        let fields: HTTPFields
        do {
            fields = try HTTPFields(converting: response.headers)
        } catch {
            throw RequestError.validationFailed(response, reason: error.problems.map(\.message).joined(separator: "; "))
        }
        self.init(status: Status(code: code, reasonPhrase: response.status.reasonPhrase), headerFields: fields)
    }
}

extension Response {
    /// A response of swift-http-types' `response` (its status code and header fields, in order, repeated names kept)
    /// with `body` and the `url` it came from. ``HTTPResponse/init(_:)`` gives back the same fields and status; a
    /// reason phrase other than the standard one is not kept.
    ///
    /// ```swift
    /// let response = Response(HTTPResponse(status: .ok, headerFields: [.contentType: "text/plain"]), body: Data("hi".utf8))
    /// ```
    public init(_ response: HTTPResponse, body: Data = Data(), url: URL? = nil) {
        self.init(
            status: HTTPStatus(code: response.status.code),
            headers: HTTPHeaders(converting: response.headerFields),
            body: body, url: url)
    }
}

extension HTTPHeaders {
    /// `fields` as headers, in order, each name as it was written.
    ///
    /// ```swift
    /// let headers = HTTPHeaders(converting: response.headerFields)
    /// ```
    package init(converting fields: HTTPFields) {
        self.init(fields.map { HTTPHeader(name: $0.name.rawName, value: $0.value) })
    }
}

extension HTTPFields {
    /// `headers` as fields, in order.
    fileprivate init(converting headers: HTTPHeaders) throws(RequestError) {
        self.init()
        reserveCapacity(headers.count)
        for header in headers {
            guard let name = HTTPField.Name(header.name) else {
                throw RequestError.invalidRequest([
                    RequestProblem(.invalidHeaderName, "the field name \(header.name.debugDescription) is not a token")
                ])
            }
            guard HTTPField.isValidValue(header.value) else {
                throw RequestError.invalidRequest([
                    RequestProblem(
                        .invalidHeaderValue, "the value of \(header.name) has a character HTTP does not allow")
                ])
            }
            append(HTTPField(name: name, value: header.value))
        }
    }
}
#endif
