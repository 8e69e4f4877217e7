import RequestKitModel

/// How ``RequestRepresentable/events(_:)`` reconnects after a dropped connection.
///
/// ```swift
/// var configuration = EventSourceConfiguration()
/// configuration.maxReconnectAttempts = 10
/// configuration.defaultRetry = .seconds(1)
/// let events = request.events(configuration)
/// ```
public struct EventSourceConfiguration: Sendable, Hashable {
    /// How many reconnections in a row may happen without an event arriving; then the sequence ends (throwing
    /// the last error, if the connection failed rather than closed). 5 by default; 0 never reconnects.
    public var maxReconnectAttempts: Int
    /// The wait before reconnecting until the server sends a `retry` field; 3 seconds by default.
    public var defaultRetry: Duration
    /// The shortest wait before reconnecting, whatever `retry` the server sent; 100 ms by default.
    public var minimumRetry: Duration
    /// A connection that ends sooner than this after it opened counts as a quick end; 5 seconds by default.
    public var stableConnection: Duration
    /// How the wait grows while connections keep ending quickly: the first reconnection waits the server's
    /// `retry`, each further quick end in a row multiplies it, up to the backoff's maximum (60 s by default, with
    /// ±20 % jitter). A connection that stays open for ``stableConnection`` brings the wait back to `retry`.
    public var backoff: Backoff

    /// Creates a configuration.
    ///
    /// ```swift
    /// let configuration = EventSourceConfiguration(maxReconnectAttempts: 0)  // never reconnect
    /// ```
    /// - Parameters:
    ///   - maxReconnectAttempts: Reconnections in a row without an event before giving up.
    ///   - defaultRetry: The wait before reconnecting until the server sends `retry`.
    ///   - minimumRetry: The shortest wait, whatever the server says.
    ///   - stableConnection: How long a connection must last not to count as a quick end.
    ///   - backoff: How the wait grows while connections keep ending quickly.
    public init(
        maxReconnectAttempts: Int = 5, defaultRetry: Duration = .seconds(3),
        minimumRetry: Duration = .milliseconds(100),
        stableConnection: Duration = .seconds(5),
        backoff: Backoff = .exponential(multiplier: 2, maximum: .seconds(60), jitter: 0.2)
    ) {
        self.maxReconnectAttempts = max(0, maxReconnectAttempts)
        self.defaultRetry = defaultRetry
        self.minimumRetry = max(.zero, minimumRetry)
        self.stableConnection = stableConnection
        self.backoff = backoff
    }

    /// The wait before reconnecting, given the server's `retry` (if any) and how many connections in a row ended
    /// quickly, this one included.
    func reconnectionDelay(retry: Duration?, quickEnds: Int) -> Duration {
        let base = max(retry ?? defaultRetry, minimumRetry)
        return backoff.delay(afterFailures: max(0, quickEnds - 1), interval: base)
    }
}
