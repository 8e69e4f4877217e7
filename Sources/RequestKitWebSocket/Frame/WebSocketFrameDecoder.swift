import Foundation

/// Reads frames out of the bytes a connection receives (RFC 6455 §5.2), checking every framing rule as soon as
/// the bytes that break it arrive: reserved opcodes and bits, masking by role, control frames whole and at most 125
/// bytes, the shortest length encoding, and the largest frame allowed, which fails before its payload is read.
///
/// A control frame comes out whole (its payload is small); a data frame comes out as its head, then its payload
/// in pieces as they arrive, unmasked, so that a large frame is never held twice and a check of its content (UTF-8,
/// inflating) runs on each piece. The last piece of a frame says so; an empty frame has one empty piece.
///
/// ```swift
/// var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
/// decoder.append(Data([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]))
/// try decoder.next()  // .dataHead(text, 5 bytes)
/// try decoder.next()  // .payload("Hello", isFrameEnd: true)
/// try decoder.next()  // nil: more bytes are needed
/// ```
package struct WebSocketFrameDecoder: Sendable {
    /// What comes out of the bytes.
    package enum Piece: Sendable, Hashable {
        /// A whole control frame (close, ping or pong) and its unmasked payload.
        case control(WebSocketFrameHead, Data)
        /// The head of a data frame (text, binary or continuation); its payload follows.
        case dataHead(WebSocketFrameHead)
        /// The next unmasked bytes of the current data frame's payload; `isFrameEnd` on its last piece.
        case payload(Data, isFrameEnd: Bool)
    }

    private enum Expectation: Sendable {
        case head
        case payload(remaining: Int, maskingKey: WebSocketMaskingKey?, offset: Int)
    }

    /// The end this decoder serves: a client refuses masked frames, a server unmasked ones.
    package let role: WebSocketRole
    /// The largest payload of one frame.
    package var maxFrameBytes: Int
    /// Whether RSV1 may be set on the first frame of a message (permessage-deflate was agreed).
    package var allowsCompressedMessages: Bool

    private var buffer: [UInt8] = []
    private var start = 0
    private var expectation = Expectation.head

    /// A decoder for `role`'s end of a connection.
    package init(role: WebSocketRole, maxFrameBytes: Int, allowsCompressedMessages: Bool = false) {
        self.role = role
        self.maxFrameBytes = max(0, maxFrameBytes)
        self.allowsCompressedMessages = allowsCompressedMessages
    }

    /// The bytes received and not read out yet.
    package var bufferedCount: Int { buffer.count - start }

    /// Whether the decoder is between frames (not inside a frame's head or payload).
    package var isBetweenFrames: Bool {
        if case .head = expectation { return start == buffer.count }
        return false
    }

    /// Adds bytes received.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        prepareForAppend()
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes received.
    package mutating func append(_ bytes: some Sequence<UInt8>) {
        prepareForAppend()
        buffer.append(contentsOf: bytes)
    }

    private mutating func prepareForAppend() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64 * 1024, start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    /// The next piece, or nil when more bytes are needed.
    ///
    /// - Throws: ``WebSocketViolation`` for the first broken rule; the decoder is then unusable.
    package mutating func next() throws(WebSocketViolation) -> Piece? {
        switch expectation {
        case .payload(let remaining, let key, let offset):
            let available = buffer.count - start
            if remaining > 0, available == 0 { return nil }
            let count = min(available, remaining)
            var chunk = Data(buffer[start..<start + count])
            start += count
            if let key, count > 0 {
                chunk.withUnsafeMutableBytes { key.apply(to: $0, offset: offset) }
            }
            let left = remaining - count
            expectation = left == 0 ? .head : .payload(remaining: left, maskingKey: key, offset: offset + count)
            return .payload(chunk, isFrameEnd: left == 0)
        case .head:
            guard let (head, headCount) = try readHead() else { return nil }
            if head.opcode.isControl {
                guard buffer.count - start >= headCount + head.payloadLength else { return nil }
                let payloadStart = start + headCount
                var payload = Data(buffer[payloadStart..<payloadStart + head.payloadLength])
                start = payloadStart + head.payloadLength
                if let key = head.maskingKey {
                    payload.withUnsafeMutableBytes { key.apply(to: $0, offset: 0) }
                }
                return .control(head, payload)
            }
            start += headCount
            expectation = .payload(remaining: head.payloadLength, maskingKey: head.maskingKey, offset: 0)
            return .dataHead(head)
        }
    }

    /// The head at the start of the buffer and its size, checked as far as its bytes have arrived; nil when it is
    /// not whole yet.
    private func readHead() throws(WebSocketViolation) -> (WebSocketFrameHead, Int)? {
        let available = buffer.count - start
        guard available >= 1 else { return nil }
        let first = buffer[start]
        let peer = role.peer
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolViolation("\(peer) sent a frame with the reserved opcode \(Self.hex(first & 0x0F))")
        }
        if first & 0x20 != 0 { throw .protocolViolation("\(peer) sent a frame with the reserved bit RSV2 set") }
        if first & 0x10 != 0 { throw .protocolViolation("\(peer) sent a frame with the reserved bit RSV3 set") }
        let isCompressed = first & 0x40 != 0
        if isCompressed {
            if !allowsCompressedMessages {
                throw .protocolViolation(
                    "\(peer) set the reserved bit RSV1 although no extension defining it was agreed")
            }
            if opcode.isControl || opcode == .continuation {
                throw .protocolViolation(
                    "\(peer) set RSV1 on a \(Self.name(of: opcode)) frame; only a message's first frame may carry it")
            }
        }
        let isFinal = first & 0x80 != 0
        if opcode.isControl, !isFinal {
            throw .protocolViolation("\(peer) sent a fragmented control frame (a \(Self.name(of: opcode)) without FIN)")
        }
        guard available >= 2 else { return nil }
        let second = buffer[start + 1]
        let isMasked = second & 0x80 != 0
        switch role {
        case .client where isMasked:
            throw .protocolViolation("\(peer) sent a masked frame; a server's frames are never masked")
        case .server where !isMasked:
            throw .protocolViolation("\(peer) sent an unmasked frame; a client's frames are always masked")
        default:
            break
        }
        let shortLength = Int(second & 0x7F)
        if opcode.isControl, shortLength > 125 {
            throw .protocolViolation(
                "\(peer) sent a \(Self.name(of: opcode)) frame of more than 125 bytes; control frames carry at most 125"
            )
        }
        var count = 2
        let length: Int
        switch shortLength {
        case 126:
            guard available >= 4 else { return nil }
            length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            count = 4
            if length < 126 {
                throw .protocolViolation("\(peer) encoded a payload length of \(length) in 16 bits; 7 bits hold it")
            }
        case 127:
            guard available >= 10 else { return nil }
            var wide: UInt64 = 0
            for index in 2..<10 { wide = wide << 8 | UInt64(buffer[start + index]) }
            count = 10
            if wide >> 63 != 0 {
                throw .protocolViolation("\(peer) sent a 64-bit payload length with its most significant bit set")
            }
            if wide <= 0xFFFF {
                throw .protocolViolation("\(peer) encoded a payload length of \(wide) in 64 bits; 16 bits hold it")
            }
            guard wide <= UInt64(maxFrameBytes) else { throw Self.frameTooLarge(peer, "\(wide)", maxFrameBytes) }
            length = Int(wide)
        default:
            length = shortLength
        }
        if length > maxFrameBytes { throw Self.frameTooLarge(peer, "\(length)", maxFrameBytes) }
        var key: WebSocketMaskingKey?
        if isMasked {
            guard available >= count + 4 else { return nil }
            key = WebSocketMaskingKey(
                buffer[start + count], buffer[start + count + 1], buffer[start + count + 2], buffer[start + count + 3])
            count += 4
        }
        let head = WebSocketFrameHead(
            isFinal: isFinal, isCompressed: isCompressed, opcode: opcode, payloadLength: length, maskingKey: key)
        return (head, count)
    }

    private static func frameTooLarge(_ peer: String, _ length: String, _ limit: Int) -> WebSocketViolation {
        .tooLarge("\(peer) sent a frame of \(length) bytes, over the limit of \(limit) bytes")
    }

    private static func hex(_ byte: UInt8) -> String {
        "0x" + String(byte, radix: 16, uppercase: true)
    }

    /// The opcode's name in messages.
    static func name(of opcode: WebSocketOpcode) -> String {
        switch opcode {
        case .continuation: "continuation"
        case .text: "text"
        case .binary: "binary"
        case .close: "close"
        case .ping: "ping"
        case .pong: "pong"
        }
    }
}
