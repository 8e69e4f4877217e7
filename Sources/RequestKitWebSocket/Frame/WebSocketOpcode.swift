/// A frame's opcode (RFC 6455 §5.2): what its payload is. The numbers 3–7 and 11–15 are reserved, and a frame
/// carrying one fails the connection.
package enum WebSocketOpcode: UInt8, Sendable, Hashable {
    /// A further frame of a fragmented message.
    case continuation = 0x0
    /// The first (or only) frame of a text message.
    case text = 0x1
    /// The first (or only) frame of a binary message.
    case binary = 0x2
    /// The closing handshake: an optional code and reason.
    case close = 0x8
    /// A ping, which the other end answers with a pong carrying the same payload.
    case ping = 0x9
    /// The answer to a ping, or an unsolicited heartbeat.
    case pong = 0xA

    /// Whether the frame is a control frame (close, ping, pong): at most 125 bytes, never fragmented.
    package var isControl: Bool { rawValue & 0x8 != 0 }
}

/// Which end of a connection a codec or state machine serves: it decides which frames must be masked.
package enum WebSocketRole: Sendable, Hashable {
    /// The client masks every frame it sends and refuses masked frames.
    case client
    /// The server sends frames unmasked and refuses unmasked ones.
    case server

    /// The other end, as messages name it: "the server" for a client.
    var peer: String { self == .client ? "the server" : "the client" }
}
