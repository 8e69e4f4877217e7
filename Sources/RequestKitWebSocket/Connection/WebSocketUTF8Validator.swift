/// Checks that bytes are UTF-8 as they arrive, piece by piece, and says so at the first byte no well-formed text
/// could contain (RFC 6455 §8.1: a text message that is not UTF-8 fails the connection), so that a message need not
/// be whole, nor its frame, for its bad bytes to end it. A sequence split across pieces or frames is checked across
/// them.
///
/// The well-formed sequences are those of the Unicode Standard's table 3-7: no overlong forms, no surrogates
/// (U+D800–U+DFFF), nothing past U+10FFFF.
///
/// ```swift
/// var validator = WebSocketUTF8Validator()
/// validator.validate([0xCE, 0xBA])  // true: κ
/// validator.validate([0xE1])        // true so far: a sequence begins
/// validator.isAtBoundary             // false: the message cannot end here
/// validator.validate([0x41])        // false: a continuation byte was needed
/// ```
package struct WebSocketUTF8Validator: Sendable, Hashable {
    /// Continuation bytes still needed by the sequence in progress.
    private var remaining = 0
    /// The lowest and highest value the next continuation byte may take.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    package init() {}

    /// Whether the bytes so far end between characters: a text message may end here.
    package var isAtBoundary: Bool { remaining == 0 }

    /// Checks the next bytes.
    ///
    /// - Returns: false as soon as a byte breaks UTF-8; the validator then stays unusable.
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        guard count > 0, let base = bytes.baseAddress else { return true }
        var index = 0
        while index < count {
            if remaining == 0 {
                // ASCII eight bytes at a time, the common case.
                while index + 8 <= count,
                    base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { return true }
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                if !start(byte) { return false }
            } else {
                let byte = base.load(fromByteOffset: index, as: UInt8.self)
                index += 1
                guard byte >= lower, byte <= upper else { return false }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        return true
    }

    /// Checks the next bytes.
    package mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        let result = bytes.withContiguousStorageIfAvailable { validate(UnsafeRawBufferPointer($0)) }
        if let result { return result }
        return Array(bytes).withUnsafeBytes { validate($0) }
    }

    /// Takes the first byte of a character.
    private mutating func start(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x7F:
            return true
        case 0xC2...0xDF:
            remaining = 1
        case 0xE0:
            remaining = 2
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF:
            remaining = 2
        case 0xED:
            remaining = 2
            upper = 0x9F
        case 0xF0:
            remaining = 3
            lower = 0x90
        case 0xF1...0xF3:
            remaining = 3
        case 0xF4:
            remaining = 3
            upper = 0x8F
        default:
            // 0x80–0xC1 (a continuation byte or an overlong two-byte start) and 0xF5–0xFF.
            return false
        }
        return true
    }
}
