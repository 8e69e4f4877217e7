import Foundation
import RequestKitModel
import RequestKitWebSocket

extension WebSocket {
    /// An open WebSocket connection: messages go out with ``send(_:)`` and come in through ``messages``; ping and
    /// pong, fragmentation, compression and the closing handshake are handled for you.
    ///
    /// Received messages wait in a bounded queue (``WebSocket/Configuration/maxQueuedMessages``,
    /// ``WebSocket/Configuration/maxQueuedBytes``): while the consumer is behind, the socket is not read, so memory
    /// stays flat and the server is slowed by TCP. Cancelling the task that iterates ``messages`` closes the
    /// connection (going away); so does releasing the socket.
    ///
    /// ```swift
    /// let socket = try await WebSocket { Url("wss://api.example.com/feed") }.connect()
    /// try await socket.send(.text("subscribe"))
    /// for try await message in socket.messages {
    ///     print(message)
    /// }
    /// try await socket.close(.normalClosure, reason: "done")
    /// ```
    public final class Socket: Sendable {
        package let connection: any WebSocketConnection
        /// The subprotocol the server chose among those offered (``Subprotocols``); nil when it chose none.
        ///
        /// ```swift
        /// if socket.subprotocol == "graphql-transport-ws" { try await socket.send(.text(#"{"type":"connection_init"}"#)) }
        /// ```
        public let subprotocol: String?
        /// The header fields of the server's `101 Switching Protocols` answer.
        ///
        /// ```swift
        /// print(socket.handshakeHeaders["Sec-WebSocket-Extensions"] ?? "no extension")
        /// ```
        public let handshakeHeaders: HTTPHeaders
        /// Whether permessage-deflate (RFC 7692) was agreed: messages are compressed both ways.
        ///
        /// ```swift
        /// print(socket.isCompressed ? "compressed" : "plain")
        /// ```
        public let isCompressed: Bool
        /// Where the opening handshake's time went, as an HTTP request's metrics show it: one attempt with the
        /// lookup, the connection (each address tried), the TLS handshake (after a proxy's tunnel, for `wss://`), the upgrade
        /// request sent, the answer's first byte and its whole head, the bytes both ways and the `101` status.
        /// Empty when the transport records no metrics.
        ///
        /// ```swift
        /// if let handshake = socket.metrics.attempts.first {
        ///     print(handshake.timeline)  // dns 0.2 ms · connect 0.1 ms · send 0.0 ms · wait 0.4 ms
        /// }
        /// ```
        public let metrics: RequestMetrics

        convenience init(channel: WebSocketChannel, opened: WebSocketChannel.Opened) {
            self.init(
                connection: channel, subprotocol: opened.subprotocol, handshakeHeaders: opened.headers,
                isCompressed: opened.compression != nil, metrics: opened.metrics)
        }

        /// A socket whose messages `connection` carries, after a handshake that agreed on what is given.
        ///
        /// ```swift
        /// let socket = WebSocket.Socket(connection: replayed, subprotocol: nil, handshakeHeaders: headers, isCompressed: false)
        /// ```
        package init(
            connection: any WebSocketConnection, subprotocol: String?, handshakeHeaders: HTTPHeaders,
            isCompressed: Bool, metrics: RequestMetrics = RequestMetrics()
        ) {
            self.connection = connection
            self.subprotocol = subprotocol
            self.handshakeHeaders = handshakeHeaders
            self.isCompressed = isCompressed
            self.metrics = metrics
        }

        deinit {
            connection.cancel()
        }

        /// The messages the server sends, in order, each whole; the sequence ends when the connection closes with
        /// normal closure, going away or no code, and throws a ``RequestError`` for any other ending (the close code
        /// and reason the server sent, a protocol violation and which, a lost connection, a ping timeout).
        ///
        /// ```swift
        /// for try await message in socket.messages {
        ///     if case .text(let text) = message { print(text) }
        /// }
        /// ```
        public var messages: Messages { Messages(socket: self) }

        /// Sends a message, in frames of at most ``WebSocket/Configuration/outgoingFrameBytes``, compressed when
        /// permessage-deflate was agreed. Returns once the bytes are handed to the socket, or waits while more than
        /// 1 MiB waits to be written. Cancelling the task while it waits closes the connection (going away), as
        /// cancelling the task that reads ``messages`` does: the message may be partly written, and nothing can
        /// follow half a frame.
        ///
        /// ```swift
        /// try await socket.send(.text("ping"))
        /// try await socket.send(.binary(Data([1, 2, 3])))
        /// ```
        /// - Throws: ``RequestError`` (``RequestError/WebSocketFailure/closed``) once the connection is closing or
        ///   closed; of kind ``RequestError/Kind/cancelled`` when the task was cancelled while it waited.
        public func send(_ message: WebSocketMessage) async throws(RequestError) {
            try await connection.send(message)
        }

        /// Closes the connection: a close frame with `code` and `reason`, then waits for the server's answer and
        /// for the server to close TCP (at most ``WebSocket/Configuration/closeTimeout`` each). ``messages`` ends
        /// when the answer arrives. Closing a closed socket does nothing.
        ///
        /// ```swift
        /// try await socket.close(.normalClosure, reason: "done")
        /// ```
        /// - Throws: ``RequestError``: `.invalidRequest` for a code no close frame carries (1005, 1006, 1015) or a
        ///   reason over 123 bytes of UTF-8; `.timedOut` (``RequestError/WebSocketFailure/closeTimeout``) when the
        ///   server does not answer.
        public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws(RequestError) {
            try await connection.close(code, reason: reason)
        }
    }

    /// The messages of a ``WebSocket/Socket``, as an `AsyncSequence`: one consumer at a time takes them.
    ///
    /// ```swift
    /// for try await message in socket.messages { print(message) }
    /// ```
    public struct Messages: AsyncSequence, Sendable {
        public typealias Element = WebSocketMessage
        let socket: Socket

        /// Takes the messages one at a time.
        ///
        /// ```swift
        /// var iterator = socket.messages.makeAsyncIterator()
        /// let first = try await iterator.next()
        /// ```
        public struct AsyncIterator: AsyncIteratorProtocol {
            let socket: Socket

            /// The next message; nil once the connection closed.
            ///
            /// ```swift
            /// while let message = try await iterator.next() { print(message) }
            /// ```
            /// - Throws: ``RequestError`` saying how the connection failed.
            public mutating func next() async throws -> WebSocketMessage? {
                try await socket.connection.next()
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
    }
}

extension WebSocket.Socket: CustomStringConvertible, CustomReflectable {
    /// The open socket as a person reads it: what the handshake agreed, the server's answer with its sensitive
    /// fields (`Set-Cookie`, say) redacted, and nothing of the request or its secrets.
    ///
    /// ```swift
    /// print(socket)   // WebSocket.Socket (subprotocol: chat, compressed)
    /// ```
    public var description: String {
        "WebSocket.Socket (subprotocol: \(subprotocol ?? "none"), \(isCompressed ? "compressed" : "not compressed"))"
    }

    /// What `dump(socket)` shows: the ``description`` and the handshake's answer, redacted.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "description": description,
                "handshakeHeaders": SensitiveData().redactedFields(handshakeHeaders),
            ], displayStyle: .class)
    }
}
