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

    /// Creates a configuration.
    ///
    /// ```swift
    /// let configuration = EventSourceConfiguration(maxReconnectAttempts: 0)  // never reconnect
    /// ```
    public init(maxReconnectAttempts: Int = 5, defaultRetry: Duration = .seconds(3)) {
        self.maxReconnectAttempts = max(0, maxReconnectAttempts)
        self.defaultRetry = defaultRetry
    }
}
