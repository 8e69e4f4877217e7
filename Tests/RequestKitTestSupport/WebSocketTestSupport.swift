import Foundation

@testable import RequestKitWebSocket

/// Masking keys a test knows: every key is the same four bytes (`0x00000000` by default, so masked payloads read as
/// they are written).
package struct FixedMaskingKeys: RandomNumberGenerator {
    package var key: UInt32 = 0

    package init(key: UInt32 = 0) { self.key = key }

    package mutating func next() -> UInt64 { UInt64(key) }
}

/// Frames as bytes, for tables: unmasked unless a key is given.
package enum FrameBytes {
    /// One frame: the head's flags and opcode, then `payload`.
    package static func frame(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, key: [UInt8]? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode]
        let mask: UInt8 = key == nil ? 0 : 0x80
        switch payload.count {
        case 0..<126: bytes.append(mask | UInt8(payload.count))
        case 126...0xFFFF: bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(mask | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        guard let key else { return bytes + payload }
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    package static func text(_ text: String, fin: Bool = true, key: [UInt8]? = nil) -> [UInt8] {
        frame(0x1, Array(text.utf8), fin: fin, key: key)
    }

    package static func continuation(_ bytes: [UInt8], fin: Bool = true, key: [UInt8]? = nil) -> [UInt8] {
        frame(0x0, bytes, fin: fin, key: key)
    }

    /// A close frame with a code and reason.
    package static func close(_ code: UInt16, _ reason: String = "", key: [UInt8]? = nil) -> [UInt8] {
        frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8), key: key)
    }

    /// A close frame as a client sends it with the zero key.
    package static func maskedClose(_ code: UInt16, _ reason: String = "") -> Data {
        Data(close(code, reason, key: [0, 0, 0, 0]))
    }
}

extension WebSocketFrameDecoder {
    /// Every piece the buffered bytes hold, or the violation that stopped the decoding.
    package mutating func drain() -> (pieces: [Piece], violation: WebSocketViolation?) {
        var pieces: [Piece] = []
        do {
            while let piece = try next() { pieces.append(piece) }
        } catch {
            return (pieces, error)
        }
        return (pieces, nil)
    }
}

extension WebSocketConnectionStateMachine {
    /// Bytes received, then every action they lead to, in order.
    package mutating func feed(_ bytes: [UInt8]) -> [Action] {
        received(bytes)
        return drainActions()
    }

    /// Every action what is buffered leads to, in order.
    package mutating func drainActions() -> [Action] {
        var actions: [Action] = []
        while true {
            let action = processReceived()
            if action == .none { return actions }
            actions.append(action)
        }
    }
}
