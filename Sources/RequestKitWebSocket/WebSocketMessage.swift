import Foundation

/// One whole WebSocket message, as sent or received: text or binary.
///
/// A message is whole whatever the frames that carried it: RequestKit joins a fragmented message before it
/// delivers it, and splits a large one into frames when it sends it. Text is valid UTF-8 on the wire; a server
/// that sends anything else fails the connection.
///
/// ```swift
/// switch message {
/// case .text(let text): print("text:", text)
/// case .binary(let data): print("\(data.count) bytes")
/// }
/// ```
public enum WebSocketMessage: Sendable, Hashable, CustomStringConvertible {
    /// A text message (opcode 0x1): UTF-8 on the wire.
    ///
    /// ```swift
    /// let subscribe = WebSocketMessage.text(#"{"type":"subscribe","channel":"prices"}"#)
    /// ```
    case text(String)
    /// A binary message (opcode 0x2).
    ///
    /// ```swift
    /// let blob = WebSocketMessage.binary(Data([0x01, 0x02, 0x03]))
    /// ```
    case binary(Data)

    /// The message's kind and size, never its content, which may be a secret: `text, 5 bytes`.
    ///
    /// ```swift
    /// print(WebSocketMessage.text("hello"))  // text, 5 bytes
    /// ```
    public var description: String {
        switch self {
        case .text(let text): "text, \(text.utf8.count) bytes"
        case .binary(let data): "binary, \(data.count) bytes"
        }
    }

    /// The payload's size in bytes (for text, its UTF-8 length).
    package var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
