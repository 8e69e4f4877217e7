import Foundation
import RequestKitModel
import RequestKitWebSocket

extension WebSocket {
    /// When a ``ReconnectingSocket`` opens its connection again, and how long it waits first: the event source's
    /// rules (``EventSourceConfiguration``) for a socket. After a connection ends that the socket did not close, or
    /// an attempt to open one fails, it waits ``delay`` and reconnects, up to ``maxAttempts`` times in a row; while
    /// connections keep ending sooner than ``stableConnection`` after they opened, the wait grows by ``backoff``.
    ///
    /// Failures that would only repeat end the socket instead: a handshake refused with a `4xx` status (but `408` and
    /// `429`), a `101` that breaks the handshake's rules, a TLS failure, an invalid definition, a cancellation.
    ///
    /// ```swift
    /// let policy = WebSocket.ReconnectPolicy(maxAttempts: 10, delay: .seconds(1), backoff: .exponential(maximum: .seconds(30)))
    /// ```
    public struct ReconnectPolicy: Sendable, Hashable {
        /// The most reconnections in a row without a stable connection; 0 never reconnects.
        ///
        /// ```swift
        /// var policy = WebSocket.ReconnectPolicy()
        /// policy.maxAttempts = 20
        /// ```
        public var maxAttempts: Int
        /// The wait before the first reconnection in a row.
        ///
        /// ```swift
        /// var policy = WebSocket.ReconnectPolicy()
        /// policy.delay = .milliseconds(500)
        /// ```
        public var delay: Duration
        /// How long a connection must have stayed open for the next reconnection to wait ``delay`` again and count
        /// as the first in a row.
        ///
        /// ```swift
        /// var policy = WebSocket.ReconnectPolicy()
        /// policy.stableConnection = .seconds(30)
        /// ```
        public var stableConnection: Duration
        /// How the wait grows with each reconnection in a row.
        ///
        /// ```swift
        /// var policy = WebSocket.ReconnectPolicy()
        /// policy.backoff = .exponential(multiplier: 3, maximum: .seconds(120), jitter: 0)
        /// ```
        public var backoff: Backoff

        /// Creates a policy.
        ///
        /// ```swift
        /// let policy = WebSocket.ReconnectPolicy(maxAttempts: 5, delay: .seconds(2))
        /// ```
        /// - Parameters:
        ///   - maxAttempts: The most reconnections in a row; negative values count as 0.
        ///   - delay: The first wait; negative values count as 0.
        ///   - stableConnection: How long a connection must last to reset the count.
        ///   - backoff: How the wait grows.
        public init(
            maxAttempts: Int = 5, delay: Duration = .seconds(1), stableConnection: Duration = .seconds(5),
            backoff: Backoff = .exponential(multiplier: 2, maximum: .seconds(60), jitter: 0.2)
        ) {
            self.maxAttempts = max(0, maxAttempts)
            self.delay = max(.zero, delay)
            self.stableConnection = stableConnection
            self.backoff = backoff
        }

        /// Whether a connection that ended with `error` (nil: the server closed it normally), or an attempt that
        /// failed with it, is worth another try.
        ///
        /// ```swift
        /// let again = WebSocket.ReconnectPolicy().reconnects(after: error)
        /// ```
        public func reconnects(after error: RequestError?) -> Bool {
            guard let error else { return true }
            if error.isCancelled || error.kind == .invalidRequest || error.kind == .tls { return false }
            switch error.webSocketFailure {
            case .handshakeRefused?:
                guard let status = error.statusCode else { return true }
                return !(400..<500).contains(status) || status == 408 || status == 429
            case .invalidHandshake?:
                return false
            default:
                return true
            }
        }
    }
}
