import Foundation
import RequestKitModel
import RequestKitWebSocket

/// The decisions of a ``WebSocket/ReconnectingSocket``, without I/O or a clock: a connection opened, ended or could
/// not be opened, at a time the socket reads from its clock, and whether to reconnect and after how long.
///
/// ```swift
/// var reconnection = WebSocketReconnection(policy: WebSocket.ReconnectPolicy())
/// reconnection.connected(at: clock.now)
/// switch reconnection.ended(error, at: clock.now) {
/// case .reconnect(let delay): try await clock.sleep(for: delay)
/// case .end: return
/// }
/// ```
struct WebSocketReconnection: Sendable {
    /// What to do after a connection ended or an attempt failed.
    enum Action: Sendable, Hashable {
        /// Open a connection again after this wait.
        case reconnect(after: Duration)
        /// Stop: the failure would repeat, or the attempts in a row ran out.
        case end
    }

    let policy: WebSocket.ReconnectPolicy
    /// The reconnections in a row without a stable connection.
    private(set) var attemptsInRow = 0
    /// When the open connection opened.
    private var connectedAt: Duration?

    init(policy: WebSocket.ReconnectPolicy) {
        self.policy = policy
    }

    /// A connection opened at `now`.
    mutating func connected(at now: Duration) {
        connectedAt = now
    }

    /// The open connection ended at `now`, with `error` (nil: closed by the server without one).
    mutating func ended(_ error: RequestError?, at now: Duration) -> Action {
        if let connectedAt, now - connectedAt >= policy.stableConnection { attemptsInRow = 0 }
        connectedAt = nil
        return next(after: error)
    }

    /// An attempt to open a connection failed with `error`.
    mutating func failed(_ error: RequestError) -> Action {
        connectedAt = nil
        return next(after: error)
    }

    private mutating func next(after error: RequestError?) -> Action {
        guard policy.reconnects(after: error), attemptsInRow < policy.maxAttempts else { return .end }
        attemptsInRow += 1
        return .reconnect(after: policy.backoff.delay(afterFailures: attemptsInRow - 1, interval: policy.delay))
    }
}
