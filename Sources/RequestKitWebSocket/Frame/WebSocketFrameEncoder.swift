import Foundation

/// Writes frames (RFC 6455 §5.2): the head with the shortest length encoding, then the payload, masked when the
/// head carries a key. A client masks every frame with a new key; a server masks none.
///
/// ```swift
/// var frames = Data()
/// let head = WebSocketFrameHead(opcode: .text, payloadLength: 5, maskingKey: key)
/// WebSocketFrameEncoder.append(head, payload: Data("Hello".utf8), to: &frames)
/// ```
package enum WebSocketFrameEncoder {
    /// Appends one frame: `head` (whose length must be `payload`'s) and `payload`, masked with the head's key.
    package static func append(_ head: WebSocketFrameHead, payload: some DataProtocol, to output: inout Data) {
        appendHead(head, to: &output)
        let start = output.count
        output.append(contentsOf: payload)
        guard let key = head.maskingKey else { return }
        output.withUnsafeMutableBytes { bytes in
            key.apply(to: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]), offset: 0)
        }
    }

    /// Appends the bytes of `head` alone.
    package static func appendHead(_ head: WebSocketFrameHead, to output: inout Data) {
        appendHead(
            isFinal: head.isFinal, reservedBits: head.isCompressed ? 0x4 : 0, opcode: head.opcode.rawValue,
            payloadLength: head.payloadLength, maskingKey: head.maskingKey, to: &output)
    }

    /// Appends a head of any bits, broken ones included: `reservedBits` are RSV1–RSV3 (0 to 7, RSV1 the highest),
    /// `opcode` any of 0 to 15. For a test server that breaks the protocol on purpose.
    package static func appendHead(
        isFinal: Bool, reservedBits: UInt8, opcode: UInt8, payloadLength: Int, maskingKey: WebSocketMaskingKey?,
        to output: inout Data
    ) {
        let first: UInt8 = (isFinal ? 0x80 : 0) | (reservedBits & 0x7) << 4 | opcode & 0x0F
        let mask: UInt8 = maskingKey == nil ? 0 : 0x80
        let length = payloadLength
        if length < 126 {
            output.append(contentsOf: [first, mask | UInt8(truncatingIfNeeded: length)])
        } else if length <= 0xFFFF {
            output.append(contentsOf: [
                first, mask | 126, UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length),
            ])
        } else {
            output.append(contentsOf: [first, mask | 127])
            let wide = UInt64(length)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: wide >> UInt64(shift)))
            }
        }
        if let key = maskingKey {
            output.append(contentsOf: [key.bytes.0, key.bytes.1, key.bytes.2, key.bytes.3])
        }
    }

    /// The payload of a close frame: the code in network order, then the reason's UTF-8 (RFC 6455 §5.5.1).
    package static func closePayload(code: WebSocketCloseCode, reason: String) -> Data {
        var payload = Data([UInt8(truncatingIfNeeded: code.code >> 8), UInt8(truncatingIfNeeded: code.code)])
        payload.append(contentsOf: reason.utf8)
        return payload
    }
}
