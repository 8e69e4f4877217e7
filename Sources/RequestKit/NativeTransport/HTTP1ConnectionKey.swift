import Foundation

/// What a pool of connections serves: the host and port, and for `https` the TLS configuration the connections
/// were verified with (plain and TLS connections to the same host and port are never mixed, nor TLS connections
/// made with different trust settings).
struct HTTP1ConnectionKey: Sendable, Hashable {
    var host: String
    var port: Int
    /// The TLS configuration of an `https` connection; nil for plain `http`.
    var tls: TLSConfiguration? = nil

    /// Whether connections for this key speak TLS.
    var isSecure: Bool { tls != nil }
}
