import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One proxy: its protocol, host, port and credentials, as a connection key holds it (connections through
/// different proxies, or with different credentials, are pooled apart).
///
/// ```swift
/// let server = try ProxyServer(parsing: "http://127.0.0.1:3128", origin: "http_proxy")
/// ```
struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// How the transport speaks to the proxy.
    enum Kind: String, Sendable, Hashable {
        /// HTTP: absolute-form requests, `CONNECT` for TLS origins.
        case http
        /// HTTP over TLS to the proxy.
        case https
        /// SOCKS5, the origin's address looked up by the transport.
        case socks5
        /// SOCKS5, the origin's name looked up by the proxy.
        case socks5h
    }

    let kind: Kind
    /// The host name or IP address, without brackets.
    let host: String
    let port: Int
    let credentials: ProxyConfiguration.Credentials?

    init(kind: Kind, host: String, port: Int, credentials: ProxyConfiguration.Credentials?) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Reads a proxy URL: `[scheme://][user[:password]@]host[:port][/]`.
    ///
    /// - Parameters:
    ///   - text: The URL.
    ///   - origin: Where it came from (a variable's name), for the error.
    /// - Throws: ``RequestError`` of kind `.invalidRequest` naming `origin`, when `text` is not a proxy URL.
    init(parsing text: String, origin: String) throws(RequestError) {
        func invalid(_ why: String) -> RequestError {
            RequestError.invalidRequest([
                RequestProblem(.invalidComponent, "\(origin): \(why) (a proxy URL reads http://host:port)")
            ])
        }
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var kind = Kind.http
        if let separator = rest.range(of: "://") {
            let scheme = rest[..<separator.lowerBound].lowercased()
            guard let named = Kind(rawValue: scheme) else {
                throw invalid("the proxy scheme \"\(scheme)\" is not supported: use http, https, socks5 or socks5h")
            }
            kind = named
            rest = rest[separator.upperBound...]
        }
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else { throw invalid("a proxy URL has no path") }
            rest = rest[..<slash]
        }
        var credentials: ProxyConfiguration.Credentials?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let user = parts[0].removingPercentEncoding,
                let password = (parts.count > 1 ? parts[1] : "").removingPercentEncoding
            else { throw invalid("the proxy credentials are not well percent-encoded") }
            credentials = ProxyConfiguration.Credentials(user: user, password: password)
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw invalid("an IPv6 proxy address lacks its \"]\"") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after the proxy address") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.firstIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "@" || $0 == "/" }) else {
            throw invalid("the proxy URL has no host")
        }
        var port = kind == .https ? 443 : 1080
        if let portText {
            guard let number = Int(portText), (1...65535).contains(number) else {
                throw invalid("the proxy port \"\(portText)\" is not a number from 1 to 65535")
            }
            port = number
        }
        self.init(kind: kind, host: String(host), port: port, credentials: credentials)
    }

    /// Whether the proxy speaks HTTP (absolute-form requests, `CONNECT` tunnels).
    var isHTTP: Bool { kind == .http || kind == .https }

    /// The host as it goes in a URL or an authority: IPv6 addresses in brackets.
    var authorityHost: String { host.contains(":") ? "[\(host)]" : host }

    /// `socks5://user:<redacted>@127.0.0.1:1080`: never the password.
    var description: String {
        let user = credentials.map { "\($0.user):<redacted>@" } ?? ""
        return "\(kind.rawValue)://\(user)\(authorityHost):\(port)"
    }

    /// `proxy 127.0.0.1 port 3128`, for error messages.
    var place: String { "proxy \(host) port \(port)" }
}
