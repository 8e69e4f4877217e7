/// How a connection reaches its origin through a proxy: the proxy, the TLS settings of an `https` proxy, and for
/// `socks5` (where the transport looks names up) the origin's address.
///
/// ```swift
/// let route = HTTP1ProxyRoute(server: server, proxyTLS: nil, originAddress: "192.0.2.7")
/// ```
struct HTTP1ProxyRoute: Sendable, Hashable {
    let server: ProxyServer
    /// The TLS settings the connection to an `https` proxy is verified with; nil for other proxies.
    let proxyTLS: HTTP1TLSSettings?
    /// The origin's address, looked up by the transport for a `socks5` proxy; nil when the proxy is given the name.
    let originAddress: String?
}
