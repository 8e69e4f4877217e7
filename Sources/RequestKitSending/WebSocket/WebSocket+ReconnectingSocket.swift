import Foundation
import RequestKitModel
import RequestKitNativeTransport
import RequestKitWebSocket

extension WebSocket {
    /// A WebSocket that opens its connection again when it ends without being closed, as the event source does:
    /// after the wait its ``ReconnectPolicy`` gives, on the clock the definition uses (``UseClock``), then runs its
    /// resume hook on the new connection (to subscribe again, or to ask for what was missed) before the messages
    /// go on.
    ///
    /// ``messages`` runs on across connections: it ends only when ``close(_:reason:)`` closed the socket, and
    /// throws the last failure once the policy stops reconnecting. Made by
    /// ``WebSocket/connect(reconnecting:onReconnect:)``.
    ///
    /// ```swift
    /// let feed = try await WebSocket { Url("wss://api.example.com/feed") }.connect(reconnecting: .init()) { socket, _ in
    ///     try await socket.send(.text("subscribe"))
    /// }
    /// try await feed.send(.text("subscribe"))
    /// for try await message in feed.messages { print(message) }
    /// ```
    public final class ReconnectingSocket: Sendable {
        /// What the socket's state is guarded by.
        private let state: ReconnectingState
        let definition: WebSocket
        let clock: RequestClock
        let onReconnect: @Sendable (Socket, Int) async throws -> Void

        init(
            definition: WebSocket, socket: Socket, policy: ReconnectPolicy, clock: RequestClock,
            onReconnect: @escaping @Sendable (Socket, Int) async throws -> Void
        ) {
            self.definition = definition
            self.clock = clock
            self.onReconnect = onReconnect
            var reconnection = WebSocketReconnection(policy: policy)
            reconnection.connected(at: clock.now)
            state = ReconnectingState(socket: socket, reconnection: reconnection)
        }

        /// The open connection (the last one, once the socket has ended).
        ///
        /// ```swift
        /// print(feed.socket.metrics.attempts.first?.timeline ?? "")
        /// ```
        public var socket: Socket { state.withLock { $0.socket } }

        /// How many times the socket has reconnected.
        ///
        /// ```swift
        /// print("reconnected \(feed.reconnections) times")
        /// ```
        public var reconnections: Int { state.withLock { $0.reconnections } }

        /// The messages of every connection in turn; see ``ReconnectingSocket``.
        ///
        /// ```swift
        /// for try await message in feed.messages { print(message) }
        /// ```
        public var messages: ReconnectingMessages { ReconnectingMessages(socket: self) }

        /// Sends a message on the open connection.
        ///
        /// ```swift
        /// try await feed.send(.text("ping"))
        /// ```
        /// - Throws: ``RequestError`` (``RequestError/WebSocketFailure/closed``) while the connection is down or
        ///   once the socket is closed.
        public func send(_ message: WebSocketMessage) async throws(RequestError) {
            try await socket.send(message)
        }

        /// Closes the socket for good: the open connection's closing handshake, and no reconnection after it.
        ///
        /// ```swift
        /// try await feed.close(.normalClosure, reason: "done")
        /// ```
        /// - Throws: ``RequestError`` as ``Socket/close(_:reason:)`` does.
        public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws(RequestError) {
            let socket = state.withLock { state in
                state.isClosed = true
                return state.socket
            }
            try await socket.close(code, reason: reason)
        }

        /// The next message of the open connection, reconnecting as the policy says when it ends.
        func next() async throws(RequestError) -> WebSocketMessage? {
            while true {
                let (socket, isClosed) = state.withLock { ($0.socket, $0.isClosed) }
                let ending: RequestError?
                do {
                    var iterator = socket.messages.makeAsyncIterator()
                    if let message = try await iterator.next() { return message }
                    ending = nil
                } catch {
                    ending = RequestError.wrapping(error)
                }
                if isClosed || state.withLock({ $0.isClosed }) || Task.isCancelled {
                    if let ending { throw ending }
                    return nil
                }
                let now = clock.now
                var action = state.withLock { $0.reconnection.ended(ending, at: now) }
                var lastError = ending
                while case .reconnect(let delay) = action {
                    do {
                        try await clock.sleep(for: delay)
                    } catch {
                        throw RequestError.cancelled(underlyingError: error)
                    }
                    do throws(RequestError) {
                        try await reopen()
                        action = .end
                        lastError = nil
                    } catch {
                        if error.isCancelled { throw error }
                        lastError = error
                        action = state.withLock { $0.reconnection.failed(error) }
                    }
                }
                if let lastError { throw lastError }
                if state.withLock({ $0.isClosed }) { return nil }
            }
        }

        /// Opens a new connection, runs the hook on it, and makes it the socket's.
        private func reopen() async throws(RequestError) {
            let fresh = try await definition.connect()
            let count = state.withLock { state in
                state.reconnections += 1
                return state.reconnections
            }
            do {
                try await onReconnect(fresh, count)
            } catch {
                try? await fresh.close(.goingAway, reason: "")
                throw RequestError.wrapping(error)
            }
            let now = clock.now
            let closedMeanwhile = state.withLock { state in
                state.socket = fresh
                state.reconnection.connected(at: now)
                return state.isClosed
            }
            if closedMeanwhile { try? await fresh.close() }
        }
    }

    /// The messages of a ``ReconnectingSocket``, across its connections: one consumer at a time takes them.
    ///
    /// ```swift
    /// for try await message in feed.messages { print(message) }
    /// ```
    public struct ReconnectingMessages: AsyncSequence, Sendable {
        public typealias Element = WebSocketMessage
        let socket: ReconnectingSocket

        /// Takes the messages one at a time.
        ///
        /// ```swift
        /// var iterator = feed.messages.makeAsyncIterator()
        /// let first = try await iterator.next()
        /// ```
        public struct AsyncIterator: AsyncIteratorProtocol {
            let socket: ReconnectingSocket

            /// The next message; nil once the socket was closed.
            ///
            /// ```swift
            /// while let message = try await iterator.next() { print(message) }
            /// ```
            /// - Throws: ``RequestError``: the last failure once the policy stops reconnecting.
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.next()
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
    }
}

/// A ``WebSocket/ReconnectingSocket``'s mutable state, behind a lock.
final class ReconnectingState: @unchecked Sendable {
    // Safe: every access to `value` holds `lock`.
    struct Value {
        var socket: WebSocket.Socket
        var reconnection: WebSocketReconnection
        var reconnections = 0
        var isClosed = false
    }

    private let lock = NSLock()
    private var value: Value

    init(socket: WebSocket.Socket, reconnection: WebSocketReconnection) {
        value = Value(socket: socket, reconnection: reconnection)
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock { body(&value) }
    }
}
