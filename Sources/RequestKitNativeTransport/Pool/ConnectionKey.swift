import Foundation
import RequestKitModel

/// What a pool of connections serves: the host and port, for `https` the TLS configuration the connections
/// were verified with (plain and TLS connections to the same host and port are never mixed, nor TLS connections
/// made with different trust settings), the proxy they go through, if any (a tunnel serves its origin only), and the
/// Unix domain socket they go through instead of TCP, if any (each socket path is pooled apart), and the addresses a
/// request's DNS overrides fix for the host its socket connects to, if any (a connection made for an override never
/// serves a request that resolves the name, nor one with other overrides).
///
/// The pool looks a request's key up several times per request, so the key hashes its parts once, when it is made.
struct ConnectionKey: Sendable, Hashable {
    let host: String
    let port: Int
    /// The TLS configuration of an `https` connection; nil for plain `http`.
    let tls: TLSSettings?
    /// The proxy the connection goes through; nil for a direct connection.
    let proxy: ProxyRoute?
    /// The Unix domain socket the connection goes through instead of TCP; nil for TCP. The host and port still name
    /// the origin, for the `Host` header and TLS.
    let unixSocket: SocketAddress?
    /// The addresses a request's own DNS overrides fix for ``connectHost`` and ``connectPort``, which the connector
    /// races instead of asking the transport's resolver; nil when the transport's overrides, its cache and its
    /// resolver decide.
    let overrideAddresses: [SocketAddress]?
    private let hash: Int

    init(
        host: String, port: Int, tls: TLSSettings? = nil, proxy: ProxyRoute? = nil, unixSocket: SocketAddress? = nil,
        overrideAddresses: [SocketAddress]? = nil
    ) {
        self.host = host
        self.port = port
        self.tls = tls
        self.proxy = proxy
        self.unixSocket = unixSocket
        self.overrideAddresses = overrideAddresses
        var hasher = Hasher()
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(tls)
        hasher.combine(proxy)
        hasher.combine(unixSocket)
        hasher.combine(overrideAddresses)
        hash = hasher.finalize()
    }

    /// This key for a connection through the Unix socket at `socket` (no proxy), or this key when nil.
    func through(_ socket: SocketAddress?) -> ConnectionKey {
        guard let socket else { return self }
        return ConnectionKey(host: host, port: port, tls: tls, unixSocket: socket)
    }

    /// This key for a request whose own DNS overrides are `overrides`: with the addresses they fix for the host and
    /// port the socket connects to, unless those are the transport's own (`transportOverrides`, which its resolver
    /// applies to every connection) or the connection goes through a Unix socket.
    func overridden(by overrides: DNSOverrides, over transportOverrides: DNSOverrides) -> ConnectionKey {
        guard unixSocket == nil, !overrides.isEmpty,
            let addresses = overrides.addresses(host: connectHost, port: connectPort),
            addresses != transportOverrides.addresses(host: connectHost, port: connectPort)
        else { return self }
        return ConnectionKey(host: host, port: port, tls: tls, proxy: proxy, overrideAddresses: addresses)
    }

    /// Whether connections for this key speak TLS.
    var isSecure: Bool { tls != nil }

    /// The host the socket connects to: the proxy's, or the origin's.
    var connectHost: String { proxy?.server.host ?? host }

    /// The port the socket connects to: the proxy's, or the origin's.
    var connectPort: Int { proxy?.server.port ?? port }

    /// Whether the connection opens a tunnel to the origin through the proxy (`CONNECT` or SOCKS5) before the
    /// request; false for a direct connection and for plain `http` through an HTTP proxy (absolute-form requests).
    var isTunnelled: Bool {
        guard let proxy else { return false }
        return !proxy.server.isHTTP || tls != nil
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hash == rhs.hash && lhs.port == rhs.port && lhs.host == rhs.host && lhs.tls == rhs.tls
            && lhs.proxy == rhs.proxy && lhs.unixSocket == rhs.unixSocket
            && lhs.overrideAddresses == rhs.overrideAddresses
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
