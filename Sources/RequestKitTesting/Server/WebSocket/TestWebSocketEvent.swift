import RequestKit

/// What a ``TestServer`` saw a WebSocket client do, in ``TestServer/webSocketEvents``: the messages it sent, how
/// it closed, the rule it broke.
///
/// ```swift
/// #expect(server.webSocketEvents == [.message(.text("subscribe")), .closed(.normalClosure, reason: "done")])
/// ```
public enum TestWebSocketEvent: Sendable, Hashable {
    /// The client sent this message.
    case message(WebSocketMessage)
    /// The client sent a close frame with this code (`.noStatusReceived` for none) and reason,
    /// starting the closing handshake or answering the server's.
    case closed(WebSocketCloseCode, reason: String)
    /// The client broke a rule of the protocol; the text says which. The server closed the connection.
    case failed(String)
    /// The connection ended without a close frame from the client.
    case disconnected
}
