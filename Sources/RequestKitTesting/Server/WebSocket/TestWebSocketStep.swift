import Foundation
import RequestKit

/// One step of the WebSocket conversation a ``TestServer`` route plays after its `101`: messages and frames to
/// send (broken ones included, for hostile tests), waits, and what to do with the client's messages.
///
/// The server's end always answers pings and the client's close, and records what the client sent in
/// ``TestServer/webSocketEvents``. When the steps run out it keeps the connection open until the client closes it.
///
/// ```swift
/// server.route("/feed") { _ in
///     .webSocket([.receive, .send(.text("subscribed")), .pause(.milliseconds(50)), .close(.normalClosure)])
/// }
/// ```
public enum TestWebSocketStep: Sendable {
    /// Sends a message, compressed when the handshake agreed on permessage-deflate, in frames of at most 1 MiB.
    ///
    /// ```swift
    /// TestWebSocketStep.send(.binary(Data([1, 2, 3])))
    /// ```
    case send(WebSocketMessage)
    /// Sends a ping with this payload (at most 125 bytes to be valid).
    ///
    /// ```swift
    /// TestWebSocketStep.ping(Data("are you there".utf8))
    /// ```
    case ping(Data)
    /// Waits for the client's next message.
    ///
    /// ```swift
    /// TestWebSocketStep.receive
    /// ```
    case receive
    /// From now on, sends every message of the client back, as an echo server does.
    ///
    /// ```swift
    /// TestWebSocketStep.echo
    /// ```
    case echo
    /// Starts the closing handshake with this code and reason; the connection closes when the client answers.
    ///
    /// ```swift
    /// TestWebSocketStep.close(.goingAway, reason: "maintenance")
    /// ```
    case close(WebSocketCloseCode, reason: String = "")
    /// Waits this long (the server's event loop waits; no thread is held).
    ///
    /// ```swift
    /// TestWebSocketStep.pause(.milliseconds(100))
    /// ```
    case pause(Duration)
    /// Sends one frame exactly as described, whatever the protocol says: any opcode (0 to 15), reserved bits
    /// (RSV1 to RSV3 as 4, 2, 1), a missing FIN, a mask, a control frame over 125 bytes.
    ///
    /// ```swift
    /// TestWebSocketStep.frame(opcode: 0x9, payload: Data(count: 126))  // a ping too long
    /// ```
    case frame(opcode: UInt8, payload: Data, isFinal: Bool = true, reservedBits: UInt8 = 0, isMasked: Bool = false)
    /// Sends these bytes as they are.
    ///
    /// ```swift
    /// TestWebSocketStep.raw(Data([0x81, 0x05]))  // a frame head whose payload never comes
    /// ```
    case raw(Data)
    /// Sends these bytes one at a time, waiting `interval` after each.
    ///
    /// ```swift
    /// TestWebSocketStep.trickle(Data([0x81, 0x02, 0x68, 0x69]), interval: .seconds(1))
    /// ```
    case trickle(Data, interval: Duration)
    /// Ends the TCP connection without a close frame.
    ///
    /// ```swift
    /// TestWebSocketStep.disconnect
    /// ```
    case disconnect

    /// The bytes of a ``frame(opcode:payload:isFinal:reservedBits:isMasked:)`` step, masked with a fixed key when
    /// asked.
    static func frameBytes(
        opcode: UInt8, payload: Data, isFinal: Bool, reservedBits: UInt8, isMasked: Bool
    ) -> Data {
        let key = isMasked ? WebSocketMaskingKey(0x5A, 0xA5, 0x3C, 0xC3) : nil
        var output = Data()
        WebSocketFrameEncoder.appendHead(
            isFinal: isFinal, reservedBits: reservedBits, opcode: opcode, payloadLength: payload.count,
            maskingKey: key, to: &output)
        let start = output.count
        output.append(payload)
        if let key {
            output.withUnsafeMutableBytes {
                key.apply(to: UnsafeMutableRawBufferPointer(rebasing: $0[start...]), offset: 0)
            }
        }
        return output
    }
}
