import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Anything that stands for a ``Request``: `Request` itself, `AnyRequest<Value>`, and the requests a
/// ``Client`` or endpoint prepares. The sending and inspecting calls are defined once, here.
///
/// ```swift
/// func log(_ request: some RequestRepresentable) { print(request.cURL) }
/// ```
public protocol RequestRepresentable: Sendable {
    /// The underlying request.
    var request: Request { get }
}

extension RequestRepresentable {
    /// Builds the Foundation request, validating everything first.
    ///
    /// ```swift
    /// let urlRequest = try Request { Url("http://127.0.0.1:8080/a b") }.urlRequest()
    /// ```
    /// - Returns: The `URLRequest` a transport sends.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` whose ``RequestError/problems``
    ///   list every problem: no Url or two, a malformed URL or scheme, an invalid header, a body on GET, a bad
    ///   method.
    public func urlRequest() throws(RequestError) -> URLRequest {
        try request.parts().makeURLRequest()
    }

    /// A copy-pasteable curl command with secrets redacted (see ``SensitiveData``): sensitive headers such as
    /// `Authorization`, `Cookie` and `X-Api-Key`, a password in the URL, sensitive query parameters such as
    /// `api_key`, and sensitive members of JSON and form bodies such as `password`. An invalid request gives a
    /// comment listing its problems.
    ///
    /// ```swift
    /// print(request.cURL)
    /// // curl -X POST 'http://127.0.0.1:8080/todos' -H 'Authorization: <redacted>' --data-binary '{"a":1}'
    /// ```
    public var cURL: String { cURL(redactingSecrets: true) }

    /// A copy-pasteable curl command, redacting secrets unless asked not to.
    ///
    /// ```swift
    /// print(request.cURL(redactingSecrets: false))
    /// ```
    public func cURL(redactingSecrets: Bool) -> String {
        do {
            let parts = request.parts()
            return CURLCommand(
                try parts.makeURLRequest(), redacting: redactingSecrets ? parts[option: SensitiveDataKey.self] : nil
            ).text
        } catch {
            return "# " + error.description.replacingOccurrences(of: "\n", with: "\n# ")
        }
    }
}
