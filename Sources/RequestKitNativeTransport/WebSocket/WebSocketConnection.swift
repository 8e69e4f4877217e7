import Foundation
import RequestKitModel
import RequestKitWebSocket

/// What carries an open ``WebSocket/Socket``'s messages: the native transport's channel, or a cassette's replay of
/// a recorded connection (and a recording over the channel).
///
/// ```swift
/// let socket = WebSocket.Socket(connection: replayed, subprotocol: nil, handshakeHeaders: headers, isCompressed: false)
/// ```
package protocol WebSocketConnection: AnyObject, Sendable {
    /// Sends a whole message.
    ///
    /// - Throws: ``RequestError`` once the connection is closing or closed, or when the message cannot be sent.
    func send(_ message: WebSocketMessage) async throws(RequestError)
    /// Closes the connection with `code` and `reason`, waiting for the other side's answer.
    ///
    /// - Throws: ``RequestError`` for a code or reason no close frame carries, or an unanswered close.
    func close(_ code: WebSocketCloseCode, reason: String) async throws(RequestError)
    /// The next whole message received; nil once the connection closed cleanly.
    ///
    /// - Throws: ``RequestError`` saying how the connection failed.
    func next() async throws(RequestError) -> WebSocketMessage?
    /// Ends the connection at once, without a closing handshake (going away), as releasing the socket does.
    func cancel()
}
