/// TCP keep-alive probes on a connection: a connection that sits idle in the pool (or waits long for an answer)
/// learns that its peer or a middlebox dropped it, and a NAT keeps its mapping.
///
/// ```swift
/// let keepAlive = TCPKeepAlive(idle: .seconds(30), interval: .seconds(10), count: 3)
/// ```
public struct TCPKeepAlive: Sendable, Hashable {
    /// How long a connection is idle before the first probe (`TCP_KEEPIDLE`, `TCP_KEEPALIVE` on Apple platforms).
    public var idle: Duration
    /// The time between unanswered probes (`TCP_KEEPINTVL`).
    public var interval: Duration
    /// How many unanswered probes end the connection (`TCP_KEEPCNT`).
    public var count: Int

    /// Probes after `idle`, then every `interval`, giving up after `count` unanswered.
    ///
    /// ```swift
    /// let keepAlive = TCPKeepAlive(idle: .seconds(60), interval: .seconds(15), count: 4)
    /// ```
    public init(idle: Duration = .seconds(60), interval: Duration = .seconds(15), count: Int = 4) {
        self.idle = idle
        self.interval = interval
        self.count = count
    }
}
