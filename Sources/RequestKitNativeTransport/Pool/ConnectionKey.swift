import Foundation

/// What a pool of connections serves: the host and port, for `https` the TLS configuration the connections
/// were verified with (plain and TLS connections to the same host and port are never mixed, nor TLS connections
/// made with different trust settings), and the proxy they go through, if any (a tunnel serves its origin only).
///
/// The pool looks a request's key up several times per request, so the key hashes its parts once, when it is made.
struct ConnectionKey: Sendable, Hashable {
    let host: String
    let port: Int
    /// The TLS configuration of an `https` connection; nil for plain `http`.
    let tls: TLSSettings?
    /// The proxy the connection goes through; nil for a direct connection.
    let proxy: ProxyRoute?
    private let hash: Int

    init(host: String, port: Int, tls: TLSSettings? = nil, proxy: ProxyRoute? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        self.proxy = proxy
        var hasher = Hasher()
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(tls)
        hasher.combine(proxy)
        hash = hasher.finalize()
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
            && lhs.proxy == rhs.proxy
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
