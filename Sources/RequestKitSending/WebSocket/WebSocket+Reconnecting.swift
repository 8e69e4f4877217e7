import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitWebSocket

extension WebSocket {
    /// Connects as ``connect()`` does, and returns a socket that connects again when its connection ends without
    /// being closed, as `policy` says, running `onReconnect` on each new connection (with the count of
    /// reconnections so far) before its messages go on.
    ///
    /// ```swift
    /// let feed = try await WebSocket {
    ///     Url("wss://api.example.com/feed")
    /// }.connect(reconnecting: WebSocket.ReconnectPolicy(maxAttempts: 10)) { socket, reconnections in
    ///     try await socket.send(.text("resume"))
    /// }
    /// for try await message in feed.messages { print(message) }
    /// ```
    /// - Parameters:
    ///   - policy: When to reconnect and how long to wait first.
    ///   - onReconnect: Runs on each new connection before its messages are read; an error it throws counts as a
    ///     failed attempt.
    /// - Returns: The socket, connected.
    /// - Throws: ``RequestError``: the first connection's failure, as ``connect()`` throws it.
    public func connect(
        reconnecting policy: ReconnectPolicy,
        onReconnect: @escaping @Sendable (Socket, Int) async throws -> Void = { _, _ in }
    ) async throws(RequestError) -> ReconnectingSocket {
        let socket = try await connect()
        return ReconnectingSocket(
            definition: self, socket: socket, policy: policy, clock: parts().clock, onReconnect: onReconnect)
    }
}
