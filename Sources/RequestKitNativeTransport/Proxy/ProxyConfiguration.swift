import Foundation
import RequestKitModel

/// Where an ``NativeTransport`` sends its requests: straight to the origin, or through an HTTP, HTTPS or SOCKS5
/// proxy.
///
/// ``environment`` is the default: the proxy variables curl reads (`http_proxy`, `https_proxy`, `all_proxy` and
/// `no_proxy`, each in lower or upper case, lower case first), read once, when the transport is made. `http://`
/// requests go to an HTTP proxy in absolute form; `https://` requests go through a `CONNECT` tunnel, then TLS to
/// the origin, verified against the origin's name. A SOCKS5 proxy carries both (`socks5h` lets the proxy resolve
/// names). Proxy credentials go to the proxy alone, and are never printed.
///
/// ```swift
/// let transport = NativeTransport { configuration in
///     configuration.proxy = .http(host: "proxy.internal", port: 3128, excluding: "localhost,.internal")
/// }
/// ```
public struct ProxyConfiguration: Sendable, Hashable, CustomStringConvertible {
    enum Source: Sendable, Hashable {
        case direct
        /// The proxy variables of these variables; nil for the process environment's.
        case environment([String: String]?)
        case server(ProxyServer, NoProxyList)
    }

    let source: Source

    /// No proxy: every request goes straight to its origin.
    ///
    /// ```swift
    /// configuration.proxy = .none
    /// ```
    public static let none = ProxyConfiguration(source: .direct)

    /// The proxies the process environment names, as curl reads them (the default).
    ///
    /// `http://` requests use `http_proxy` (or `HTTP_PROXY`, which is ignored in a CGI script, where the request's
    /// `Proxy` header could have set it), `https://` requests `https_proxy` or `HTTPS_PROXY`; both fall back on
    /// `all_proxy` or `ALL_PROXY`. The lower-case name wins when both are set; an empty value counts as unset.
    /// `no_proxy` (or `NO_PROXY`) lists the hosts reached directly, read as curl 7.88 reads it: `*` alone for
    /// every host; names matching themselves and their subdomains (a leading or trailing dot is ignored); IPv4
    /// addresses and ranges (`10.0.0.0/8`); IPv6 addresses; separated by commas or blanks, in any case. A value
    /// that is not a proxy URL fails each request it would apply to, with a ``RequestError`` naming the variable.
    ///
    /// ```swift
    /// configuration.proxy = .environment
    /// ```
    public static let environment = ProxyConfiguration(source: .environment(nil))

    /// The proxies that `variables` name, read as ``environment`` reads the process's (tests).
    ///
    /// ```swift
    /// configuration.proxy = .environment(["http_proxy": "http://127.0.0.1:3128", "no_proxy": "localhost"])
    /// ```
    package static func environment(_ variables: [String: String]) -> ProxyConfiguration {
        ProxyConfiguration(source: .environment(variables))
    }

    /// An HTTP proxy: `http://` requests are sent to it in absolute form, `https://` ones through a `CONNECT`
    /// tunnel.
    ///
    /// ```swift
    /// configuration.proxy = .http(host: "127.0.0.1", port: 3128, credentials: .init(user: "me", password: "secret"))
    /// ```
    /// - Parameters:
    ///   - host: The proxy's host name or IP address.
    ///   - port: Its port.
    ///   - credentials: Sent to the proxy with Basic authentication (`Proxy-Authorization`), never to an origin.
    ///   - excluding: The hosts reached directly, in `no_proxy` syntax.
    /// - Returns: The configuration.
    public static func http(
        host: String, port: Int = 1080, credentials: Credentials? = nil, excluding: String = ""
    ) -> ProxyConfiguration {
        server(.http, host: host, port: port, credentials: credentials, excluding: excluding)
    }

    /// An HTTP proxy reached over TLS, verified against the proxy's name with the transport's TLS configuration.
    ///
    /// An `http://` request goes to it in absolute form inside that TLS connection. An `https://` request opens a
    /// `CONNECT` tunnel inside it, with the proxy's credentials on the `CONNECT` alone, then runs a second TLS
    /// session with the origin inside the tunnel (TLS inside TLS), sending the origin's name by SNI and verifying
    /// its certificate against that name, as without a proxy.
    ///
    /// ```swift
    /// configuration.proxy = .https(host: "proxy.example.com", port: 443)
    /// ```
    /// - Parameters: as ``http(host:port:credentials:excluding:)``.
    /// - Returns: The configuration.
    public static func https(
        host: String, port: Int = 443, credentials: Credentials? = nil, excluding: String = ""
    ) -> ProxyConfiguration {
        server(.https, host: host, port: port, credentials: credentials, excluding: excluding)
    }

    /// A SOCKS5 proxy, to which the transport gives the origin's address (it looks the name up itself).
    ///
    /// ```swift
    /// configuration.proxy = .socks5(host: "127.0.0.1", port: 1080)
    /// ```
    /// - Parameters: as ``http(host:port:credentials:excluding:)``; the credentials use SOCKS5's
    ///   username/password method.
    /// - Returns: The configuration.
    public static func socks5(
        host: String, port: Int = 1080, credentials: Credentials? = nil, excluding: String = ""
    ) -> ProxyConfiguration {
        server(.socks5, host: host, port: port, credentials: credentials, excluding: excluding)
    }

    /// A SOCKS5 proxy that is given the origin's name and looks it up itself.
    ///
    /// ```swift
    /// configuration.proxy = .socks5h(host: "127.0.0.1", port: 1080)
    /// ```
    /// - Parameters: as ``socks5(host:port:credentials:excluding:)``.
    /// - Returns: The configuration.
    public static func socks5h(
        host: String, port: Int = 1080, credentials: Credentials? = nil, excluding: String = ""
    ) -> ProxyConfiguration {
        server(.socks5h, host: host, port: port, credentials: credentials, excluding: excluding)
    }

    /// The proxy a URL names, as the proxy variables spell it: `http://`, `https://`, `socks5://` or `socks5h://`
    /// (`http` when there is no scheme), with credentials percent-encoded before an `@` and the port after a `:`
    /// (1080 by default, 443 for `https`, as curl has it).
    ///
    /// ```swift
    /// let proxy = try ProxyConfiguration(url: "socks5h://user:secret@127.0.0.1:1080", excluding: "localhost")
    /// ```
    /// - Parameters:
    ///   - url: The proxy's URL.
    ///   - excluding: The hosts reached directly, in `no_proxy` syntax.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when `url` is not a proxy URL.
    public init(url: String, excluding: String = "") throws(RequestError) {
        let server = try ProxyServer(parsing: url, origin: "the proxy URL")
        self.init(source: .server(server, NoProxyList(excluding)))
    }

    init(source: Source) {
        self.source = source
    }

    private static func server(
        _ kind: ProxyServer.Kind, host: String, port: Int, credentials: Credentials?, excluding: String
    ) -> ProxyConfiguration {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let server = ProxyServer(kind: kind, host: bare, port: port, credentials: credentials)
        return ProxyConfiguration(source: .server(server, NoProxyList(excluding)))
    }

    public var description: String {
        switch source {
        case .direct: return "no proxy"
        case .environment: return "the environment's proxies"
        case .server(let server, let exclusions):
            return exclusions.isEmpty ? server.description : "\(server) (not for \(exclusions))"
        }
    }
}
