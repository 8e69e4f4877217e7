/// The mutable state a ``TestServer`` shares between its threads, always accessed under its lock.
///
/// ```swift
/// core.state.withLock { $0.stats.requestCount += 1 }
/// ```
struct ServerState: Sendable {
    var isStopped = false
    /// Whether the listening socket is closed: its number may then be another socket's.
    var isListenerClosed = false
    var connections: [Int: ServerConnection] = [:]
    var nextConnectionID = 1
    var routes: [Route] = []
    var stats = TestServer.Stats()
    var requests: [TestRequest] = []
    var hasDroppedEventStream = false
    var attemptsByPath: [String: Int] = [:]
    var webSocketEvents: [TestWebSocketEvent] = []
}
