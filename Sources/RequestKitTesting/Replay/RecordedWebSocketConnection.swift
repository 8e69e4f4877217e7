import Foundation
import RequestKit

/// A socket opened on the network whose messages, sent and received, are recorded in order with their time; the
/// list is handed to `store` when the connection ends (closed, ended by the server, failed or released).
final class RecordedWebSocketConnection: WebSocketConnection {
    /// The socket on the network, kept open as long as this connection is.
    private let socket: WebSocket.Socket
    private let store: @Sendable ([HARWebSocketMessage]) throws(RequestError) -> Void
    private let messages = Locked<[HARWebSocketMessage]>([])

    init(
        socket: WebSocket.Socket, store: @escaping @Sendable ([HARWebSocketMessage]) throws(RequestError) -> Void
    ) {
        self.socket = socket
        self.store = store
    }

    func send(_ message: WebSocketMessage) async throws(RequestError) {
        try await socket.connection.send(message)
        append(HARWebSocketMessage(message, sent: true, at: Date()))
    }

    func close(_ code: WebSocketCloseCode, reason: String) async throws(RequestError) {
        do {
            try await socket.connection.close(code, reason: reason)
        } catch {
            try ended()
            throw error
        }
        try ended()
    }

    func next() async throws(RequestError) -> WebSocketMessage? {
        let message: WebSocketMessage?
        do {
            message = try await socket.connection.next()
        } catch {
            try ended()
            throw error
        }
        guard let message else {
            try ended()
            return nil
        }
        append(HARWebSocketMessage(message, sent: false, at: Date()))
        return message
    }

    func cancel() {
        socket.connection.cancel()
        try? ended()
    }

    private func append(_ message: HARWebSocketMessage) {
        messages.withLock { $0.append(message) }
    }

    /// Stores the messages so far (again, when more came since).
    private func ended() throws(RequestError) {
        let recorded = messages.withLock { $0 }
        try store(recorded)
    }
}
