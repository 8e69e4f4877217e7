import RequestKitModel

/// A rule of RFC 6455 or RFC 7692 the other end broke, or a limit it passed: what the connection fails with, the
/// close code it sends before it closes, and what the consumer's error says.
///
/// ```swift
/// throw WebSocketViolation.protocolViolation("the server sent a frame with the reserved bit RSV2 set")
/// ```
package struct WebSocketViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// What the consumer's error reports.
    package let failure: RequestError.WebSocketFailure
    /// The code of the close frame this end sends before it closes.
    package let closeCode: WebSocketCloseCode
    /// The rule broken, for a person.
    package let message: String

    package var description: String { message }

    /// A framing or handshake rule broken (1002, protocol error).
    package static func protocolViolation(_ message: String) -> Self {
        Self(failure: .protocolViolation, closeCode: .protocolError, message: message)
    }

    /// Text or a close reason that is not UTF-8 (1007, invalid payload data).
    package static func invalidUTF8(_ message: String) -> Self {
        Self(failure: .invalidUTF8, closeCode: .invalidPayloadData, message: message)
    }

    /// A frame or message over a limit (1009, message too big).
    package static func tooLarge(_ message: String) -> Self {
        Self(failure: .messageTooLarge, closeCode: .messageTooBig, message: message)
    }

    /// Compressed data zlib cannot inflate (1007, invalid payload data).
    package static func invalidCompressedData(_ message: String) -> Self {
        Self(failure: .invalidCompressedData, closeCode: .invalidPayloadData, message: message)
    }

    /// The error the consumer sees.
    package var record: WebSocketFailureRecord {
        WebSocketFailureRecord(failure: failure, message: message, closeCode: nil, closeReason: nil)
    }
}
