/// Where ``NativeTransport`` speaks HTTP/2: over `https` when the server chooses it (the default), also over plain
/// `http` to servers known to speak it (h2c with prior knowledge), or nowhere.
///
/// Over `https` the TLS handshake offers `h2` and `http/1.1` (ALPN) and each connection speaks what the server
/// picks; a host that picks HTTP/2 gets one connection carrying many requests at once, and more only when the
/// server's `MAX_CONCURRENT_STREAMS` fills it. Plain `http` speaks HTTP/1.1 unless the policy names the server:
/// there is no negotiation over plain TCP, so a server that does not speak HTTP/2 would fail every request.
///
/// ```swift
/// let transport = NativeTransport { $0.http2 = .priorKnowledge(for: ["127.0.0.1:8080"]) }
/// let classic = NativeTransport { $0.http2 = .disabled }
/// ```
public struct HTTP2Policy: Sendable, Hashable {
    /// Whether `https` offers `h2`.
    let offersOverTLS: Bool
    /// The `host:port` (or bare host) names that speak h2c; nil for every plain `http` server.
    let priorKnowledgeHosts: Set<String>?
    /// Whether any plain `http` server speaks h2c.
    let usesPriorKnowledge: Bool

    /// HTTP/2 over `https` when the server picks it in the TLS handshake; HTTP/1.1 over plain `http`. The default.
    ///
    /// ```swift
    /// configuration.http2 = .negotiated
    /// ```
    public static let negotiated = HTTP2Policy(offersOverTLS: true, priorKnowledgeHosts: [], usesPriorKnowledge: false)

    /// HTTP/1.1 everywhere: the TLS handshake offers `http/1.1` alone.
    ///
    /// ```swift
    /// configuration.http2 = .disabled
    /// ```
    public static let disabled = HTTP2Policy(offersOverTLS: false, priorKnowledgeHosts: [], usesPriorKnowledge: false)

    /// As ``negotiated``, and HTTP/2 with prior knowledge (h2c) to every plain `http` server.
    ///
    /// ```swift
    /// let transport = NativeTransport { $0.http2 = .priorKnowledge }
    /// ```
    public static let priorKnowledge = HTTP2Policy(
        offersOverTLS: true, priorKnowledgeHosts: nil, usesPriorKnowledge: true)

    /// As ``negotiated``, and HTTP/2 with prior knowledge (h2c) to the plain `http` servers named, each as
    /// `host:port` or as a host on any port (compared without regard to case).
    ///
    /// ```swift
    /// configuration.http2 = .priorKnowledge(for: ["127.0.0.1:8080", "grpc.internal"])
    /// ```
    /// - Parameter hosts: The servers that speak h2c.
    /// - Returns: The policy.
    public static func priorKnowledge(for hosts: Set<String>) -> HTTP2Policy {
        HTTP2Policy(
            offersOverTLS: true, priorKnowledgeHosts: Set(hosts.map { $0.lowercased() }),
            usesPriorKnowledge: !hosts.isEmpty)
    }

    /// Whether plain `http` to `host` on `port` speaks h2c.
    func speaksPriorKnowledge(host: String, port: Int) -> Bool {
        guard usesPriorKnowledge else { return false }
        guard let hosts = priorKnowledgeHosts else { return true }
        let name = host.lowercased()
        return hosts.contains(name) || hosts.contains("\(name):\(port)")
    }
}
