/// How a connection reaches its origin through a proxy: the proxy, the TLS settings of an `https` proxy, and for
/// `socks5` (where the transport looks names up) the origin's address.
///
/// A class, as ``TLSSettings`` is: every connection key holds an optional route and is copied about a dozen
/// times a request, and an optional struct of strings is copied through value witnesses (1,200 instructions per
/// request, proxy or not).
///
/// ```swift
/// let route = ProxyRoute(server: server, proxyTLS: nil, originAddress: "192.0.2.7")
/// ```
final class ProxyRoute: Sendable, Hashable {
    let server: ProxyServer
    /// The TLS settings the connection to an `https` proxy is verified with; nil for other proxies.
    let proxyTLS: TLSSettings?
    /// The origin's address, looked up by the transport for a `socks5` proxy; nil when the proxy is given the name.
    let originAddress: String?

    init(server: ProxyServer, proxyTLS: TLSSettings?, originAddress: String?) {
        self.server = server
        self.proxyTLS = proxyTLS
        self.originAddress = originAddress
    }

    static func == (lhs: ProxyRoute, rhs: ProxyRoute) -> Bool {
        lhs === rhs
            || (lhs.server == rhs.server && lhs.proxyTLS == rhs.proxyTLS && lhs.originAddress == rhs.originAddress)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(server)
        hasher.combine(proxyTLS)
        hasher.combine(originAddress)
    }
}
