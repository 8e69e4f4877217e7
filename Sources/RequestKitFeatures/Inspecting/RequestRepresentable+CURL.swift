import Foundation
import RequestKitDSL
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RequestRepresentable {
    /// A copy-pasteable curl command with secrets redacted (see ``SensitiveData``): the request as the pipeline hands
    /// it to the transport, with the headers its interceptors add (``Interceptor/preview(_:)``, such as the
    /// `Authorization` of a ``BearerAuthenticator``) and the cookies its ``CookieJar`` sends. Redacted are sensitive
    /// headers such as `Authorization`, `Cookie` and `X-Api-Key`, a password in the URL, sensitive query parameters
    /// such as `api_key`, and sensitive members of JSON, form and multipart bodies such as `password`. What the
    /// transport adds on the wire is not shown: `Host`, `Content-Length` or chunked framing, `Accept-Encoding` and
    /// `User-Agent` where it sets them. An invalid request gives a comment listing its problems.
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
                parts.previewingSent(try parts.makeURLRequest()),
                redacting: redactingSecrets ? parts[option: SensitiveDataKey.self] : nil
            ).text
        } catch {
            return "# " + error.description.replacingOccurrences(of: "\n", with: "\n# ")
        }
    }
}

extension RequestParts {
    /// `request` as the pipeline sends it, worked out without sending: each interceptor's
    /// ``Interceptor/preview(_:)`` in order, then the cookies the ``CookieJar`` adds, as an exchange applies them.
    package func previewingSent(_ request: URLRequest) -> URLRequest {
        var request = request
        if hasOption(InterceptorsKey.self) {
            for interceptor in self[option: InterceptorsKey.self] { request = interceptor.preview(request) }
        }
        if let cookieJar = self[option: CookieJarKey.self] { cookieJar.addCookies(to: &request) }
        return request
    }
}
