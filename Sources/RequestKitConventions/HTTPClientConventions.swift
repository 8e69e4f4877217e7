import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the integrations (logging, metrics, tracing) say about a request, in OpenTelemetry's HTTP client semantic
/// conventions, computed one way for all of them: the method, the URL with its secrets redacted by
/// ``SensitiveData``, the server's address and port, the protocol version and the error type.
///
/// ```swift
/// let url = HTTPClientConventions.urlFull(of: request, redacting: SensitiveData())  // "https://h/a?api_key=<redacted>"
/// let port = HTTPClientConventions.serverPort(of: request)                        // 443 for https without a port
/// ```
package enum HTTPClientConventions {
    /// `http.request.method`: the method as sent, `_OTHER` for one outside RFC 9110 and RFC 5789, as OpenTelemetry
    /// asks (the original goes in ``originalMethod(of:)``), `GET` when the request names none.
    package static func method(of request: URLRequest) -> String {
        let method = request.httpMethod ?? "GET"
        return knownMethods.contains(method) ? method : "_OTHER"
    }

    /// `http.request.method_original`: the method when ``method(of:)`` is `_OTHER`, else nil.
    package static func originalMethod(of request: URLRequest) -> String? {
        let method = request.httpMethod ?? "GET"
        return knownMethods.contains(method) ? nil : method
    }

    /// `url.full`: the absolute URL with the password and sensitive query values replaced by `<redacted>`; empty
    /// without a URL.
    package static func urlFull(of request: URLRequest, redacting sensitiveData: SensitiveData) -> String {
        guard let url = request.url else { return "" }
        return sensitiveData.redacting(url.absoluteString)
    }

    /// `server.address`: the URL's host, percent-decoded and without an IPv6 literal's brackets; nil without one.
    /// Read from the parsed URL, as every integration asks for it on every request.
    package static func serverAddress(of request: URLRequest) -> String? {
        guard let host = request.url?.host(percentEncoded: false), !host.isEmpty else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { return String(host.dropFirst().dropLast()) }
        return host
    }

    /// `server.port`: the URL's port, or the scheme's default (80 for http and ws, 443 for https and wss); nil when
    /// neither is known.
    package static func serverPort(of request: URLRequest) -> Int? {
        guard let url = request.url else { return nil }
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }

    /// `network.protocol.version`: `1.0`, `1.1`, `2` or `3` from the protocol an attempt spoke (as ALPN names it:
    /// `http/1.1`, `h2`); nil when the transport did not say or names something else.
    package static func protocolVersion(ofNetworkProtocol name: String?) -> String? {
        switch name?.lowercased() {
        case "http/1.0": "1.0"
        case "http/1.1": "1.1"
        case "h2", "h2c", "http/2", "http/2.0": "2"
        case "h3", "http/3": "3"
        default: nil
        }
    }

    /// `error.type` for a request that ended with `error`: the ``RequestError/Kind``'s name (`transport`,
    /// `timedOut`, …), low in cardinality.
    package static func errorType(of error: RequestError) -> String {
        error.kind.name
    }

    /// `error.type` for a request that ended with a response: the status code as text for 4xx and 5xx, nil otherwise
    /// (OpenTelemetry's rule for HTTP clients).
    package static func errorType(ofStatus status: Int) -> String? {
        status >= 400 ? String(status) : nil
    }

    /// The methods OpenTelemetry lists as known (RFC 9110 and RFC 5789's PATCH).
    private static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
    ]
}
