import Foundation
import RequestKit

/// A socket served from a cassette, with no network: the messages recorded as received are delivered in their
/// order, and each message sent must be the next one recorded as sent; anything else is a `RequestError` naming the
/// cassette, the message's place and both messages.
final class ReplayedWebSocketConnection: WebSocketConnection {
    /// A recorded message and its direction.
    struct Event: Sendable {
        var isSent: Bool
        var message: WebSocketMessage
    }

    private struct State {
        var sends: [WebSocketMessage]
        var receives: [WebSocketMessage]
        var sent = 0
        var received = 0
        var isClosed = false
    }

    private let cassette: String
    private let state: Locked<State>

    /// A connection that replays `messages`, recorded in the cassette named `cassette`.
    init(messages: [Event], cassette: String) {
        self.cassette = cassette
        state = Locked(
            State(
                sends: messages.filter(\.isSent).map(\.message), receives: messages.filter { !$0.isSent }.map(\.message)
            ))
    }

    func send(_ message: WebSocketMessage) async throws(RequestError) {
        let cassette = cassette
        let failure = state.withLock { state -> RequestError? in
            if state.isClosed {
                return .webSocket(.closed, "the WebSocket connection is closed: no message can be sent")
            }
            let place = state.sent + 1
            guard state.sent < state.sends.count else {
                return ReplayFailure.error(
                    "RecordingTransport: message \(place) sent on the WebSocket (\(message)) is not in \(cassette), "
                        + "which records \(state.sends.count) sent")
            }
            let recorded = state.sends[state.sent]
            guard recorded == message else {
                return ReplayFailure.error(
                    "RecordingTransport: message \(place) sent on the WebSocket differs from the one \(cassette) "
                        + "records: sent \(Self.shown(message)), recorded \(Self.shown(recorded))")
            }
            state.sent += 1
            return nil
        }
        if let failure { throw failure }
    }

    func close(_ code: WebSocketCloseCode, reason: String) async throws(RequestError) {
        state.withLock { $0.isClosed = true }
    }

    func next() async throws(RequestError) -> WebSocketMessage? {
        state.withLock { state -> WebSocketMessage? in
            guard !state.isClosed, state.received < state.receives.count else { return nil }
            state.received += 1
            return state.receives[state.received - 1]
        }
    }

    func cancel() {
        state.withLock { $0.isClosed = true }
    }

    /// A message as a mismatch shows it: its kind and size, and its first bytes (text as it is, binary in hex).
    private static func shown(_ message: WebSocketMessage) -> String {
        switch message {
        case .text(let text): "\(message) \"\(text.prefix(60))\""
        case .binary(let data): "\(message) \(data.prefix(30).map { String(format: "%02x", $0) }.joined())"
        }
    }
}
