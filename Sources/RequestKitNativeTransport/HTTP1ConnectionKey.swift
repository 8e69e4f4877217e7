import Foundation

/// What a pool of connections serves: the host and port, and for `https` the TLS configuration the connections
/// were verified with (plain and TLS connections to the same host and port are never mixed, nor TLS connections
/// made with different trust settings).
///
/// The pool looks a request's key up several times per request, so the key hashes its parts once, when it is made.
struct HTTP1ConnectionKey: Sendable, Hashable {
    let host: String
    let port: Int
    /// The TLS configuration of an `https` connection; nil for plain `http`.
    let tls: HTTP1TLSSettings?
    private let hash: Int

    init(host: String, port: Int, tls: HTTP1TLSSettings? = nil) {
        self.host = host
        self.port = port
        self.tls = tls
        var hasher = Hasher()
        hasher.combine(host)
        hasher.combine(port)
        hasher.combine(tls)
        hash = hasher.finalize()
    }

    /// Whether connections for this key speak TLS.
    var isSecure: Bool { tls != nil }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.hash == rhs.hash && lhs.port == rhs.port && lhs.host == rhs.host && lhs.tls == rhs.tls
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
