import Foundation
import RequestKitModel

extension RequestError.Kind {
    /// A WebSocket connection failed: the handshake was refused or broken, the server broke the protocol or
    /// closed with an error. ``RequestError/webSocketFailure`` says which.
    ///
    /// ```swift
    /// if error.kind == .webSocket { print(error.webSocketFailure ?? "", error.webSocketCloseCode ?? "") }
    /// ```
    public static let webSocket = Self("webSocket")
}

extension RequestError {
    /// What went wrong on a WebSocket connection: the finer reason of a ``Kind/webSocket`` error (and of a
    /// ``Kind/timedOut`` one whose pings or closing handshake went unanswered).
    ///
    /// ```swift
    /// switch error.webSocketFailure {
    /// case .handshakeRefused?: print(error.statusCode ?? 0, error.responseBody ?? Data())
    /// case .closedByServer?: print(error.webSocketCloseCode ?? "", error.webSocketCloseReason ?? "")
    /// default: print(error)
    /// }
    /// ```
    public struct WebSocketFailure: Sendable, Hashable, CustomStringConvertible {
        /// A stable name for the reason.
        public let name: String

        /// Creates a reason with a stable name.
        ///
        /// ```swift
        /// let custom = RequestError.WebSocketFailure("subscriptionRejected")
        /// ```
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// The server answered the opening handshake with another status than `101`; the error's
        /// ``RequestError/response`` keeps its status, headers and body.
        public static let handshakeRefused = Self("handshakeRefused")
        /// The server's `101` answer broke the handshake: a wrong `Sec-WebSocket-Accept`, no `Upgrade`, a
        /// subprotocol or extension that was not offered.
        public static let invalidHandshake = Self("invalidHandshake")
        /// The server broke a rule of RFC 6455 or RFC 7692 (a reserved bit or opcode, a masked frame, a control
        /// frame fragmented or over 125 bytes, a continuation out of place, a bad close frame); the message names it.
        public static let protocolViolation = Self("protocolViolation")
        /// A text message or a close reason that is not UTF-8.
        public static let invalidUTF8 = Self("invalidUTF8")
        /// A frame or a message over the connection's limits, or a compressed message that expands too much.
        public static let messageTooLarge = Self("messageTooLarge")
        /// A compressed (permessage-deflate) message that zlib could not inflate.
        public static let invalidCompressedData = Self("invalidCompressedData")
        /// The server closed the connection with a code other than normal closure or going away;
        /// ``RequestError/webSocketCloseCode`` and ``RequestError/webSocketCloseReason`` hold what it sent.
        public static let closedByServer = Self("closedByServer")
        /// The connection ended without a closing handshake (the code reported is 1006, abnormal closure).
        public static let connectionLost = Self("connectionLost")
        /// A keep-alive ping got no answer in time: the connection was taken for dead and closed.
        public static let pingTimeout = Self("pingTimeout")
        /// The server did not answer a close frame in time: the connection was closed without it.
        public static let closeTimeout = Self("closeTimeout")
        /// A message or close was asked for on a connection that is closing or closed.
        public static let closed = Self("closed")
    }

    /// For a WebSocket failure, what went wrong.
    ///
    /// ```swift
    /// if error.webSocketFailure == .messageTooLarge { print("raise WebSocket.Configuration.maxMessageBytes") }
    /// ```
    public var webSocketFailure: WebSocketFailure? { (underlyingError as? WebSocketFailureRecord)?.failure }

    /// The close code the server sent when it closed the connection, or ``WebSocketCloseCode/noStatusReceived``
    /// for a close frame without one; nil when it sent no close frame.
    ///
    /// ```swift
    /// if error.webSocketCloseCode == .tryAgainLater { scheduleReconnect() }
    /// ```
    public var webSocketCloseCode: WebSocketCloseCode? { (underlyingError as? WebSocketFailureRecord)?.closeCode }

    /// The reason the server gave in its close frame (possibly empty); nil when it sent no close frame.
    ///
    /// ```swift
    /// print(error.webSocketCloseReason ?? "no close frame")
    /// ```
    public var webSocketCloseReason: String? { (underlyingError as? WebSocketFailureRecord)?.closeReason }

    /// A WebSocket failure.
    ///
    /// - Parameters:
    ///   - failure: What went wrong.
    ///   - message: What happened, for a person: the rule broken, the limit passed, the code received.
    ///   - kind: ``Kind/webSocket``, or ``Kind/timedOut`` for an unanswered ping or close.
    ///   - closeCode: The code of the server's close frame, when it sent one.
    ///   - closeReason: The reason of the server's close frame, when it sent one.
    ///   - response: The handshake's answer, when it was refused.
    package static func webSocket(
        _ failure: WebSocketFailure, _ message: String, kind: Kind = .webSocket, closeCode: WebSocketCloseCode? = nil,
        closeReason: String? = nil, response: Response? = nil
    ) -> RequestError {
        let record = WebSocketFailureRecord(
            failure: failure, message: message, closeCode: closeCode, closeReason: closeReason)
        return RequestError(kind: kind, response: response, underlyingError: record, detail: message)
    }
}

/// What a WebSocket failure carries, kept as the ``RequestError/underlyingError`` of the error that reports it; read
/// through ``RequestError/webSocketFailure``, ``RequestError/webSocketCloseCode`` and
/// ``RequestError/webSocketCloseReason``.
package struct WebSocketFailureRecord: Error, Sendable, Hashable, CustomStringConvertible {
    package let failure: RequestError.WebSocketFailure
    package let message: String
    package let closeCode: WebSocketCloseCode?
    package let closeReason: String?

    package var description: String { message }
}
