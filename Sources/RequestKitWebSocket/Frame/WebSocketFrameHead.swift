/// The head of a frame (RFC 6455 §5.2): its flags, opcode, payload length and masking key, 2 to 14 bytes on the
/// wire.
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// ```
package struct WebSocketFrameHead: Sendable, Hashable {
    /// FIN: the last frame of its message (always set on a control frame).
    package var isFinal: Bool
    /// RSV1: with permessage-deflate, the message is compressed (set on its first frame only).
    package var isCompressed: Bool
    /// What the payload is.
    package var opcode: WebSocketOpcode
    /// The payload's length in bytes.
    package var payloadLength: Int
    /// The masking key, present on every frame a client sends.
    package var maskingKey: WebSocketMaskingKey?

    /// A head.
    package init(
        isFinal: Bool = true, isCompressed: Bool = false, opcode: WebSocketOpcode, payloadLength: Int,
        maskingKey: WebSocketMaskingKey? = nil
    ) {
        self.isFinal = isFinal
        self.isCompressed = isCompressed
        self.opcode = opcode
        self.payloadLength = payloadLength
        self.maskingKey = maskingKey
    }

    /// The head's size on the wire.
    package var encodedCount: Int {
        let lengthBytes = payloadLength < 126 ? 0 : payloadLength <= 0xFFFF ? 2 : 8
        return 2 + lengthBytes + (maskingKey == nil ? 0 : 4)
    }
}
