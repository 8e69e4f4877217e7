/// The four bytes a client XORs its frame's payload with (RFC 6455 §5.3), drawn from the system's CSPRNG
/// (`SystemRandomNumberGenerator`), so that no party on the path can predict what a payload looks like on the wire.
///
/// ```swift
/// var random = SystemRandomNumberGenerator()
/// let key = WebSocketMaskingKey.random(using: &random)
/// key.apply(to: &payload, offset: 0)
/// ```
package struct WebSocketMaskingKey: Sendable, Hashable {
    /// The key's bytes in the order they are sent.
    package let bytes: (UInt8, UInt8, UInt8, UInt8)

    /// A key of these bytes, in the order they are sent.
    package init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        bytes = (b0, b1, b2, b3)
    }

    /// A key of four random bytes.
    package static func random(using generator: inout some RandomNumberGenerator) -> WebSocketMaskingKey {
        let word = generator.next() as UInt32
        return WebSocketMaskingKey(
            UInt8(truncatingIfNeeded: word >> 24), UInt8(truncatingIfNeeded: word >> 16),
            UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word))
    }

    package static func == (left: Self, right: Self) -> Bool {
        left.bytes == right.bytes
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.0)
        hasher.combine(bytes.1)
        hasher.combine(bytes.2)
        hasher.combine(bytes.3)
    }

    /// The key's byte for the payload byte at `index`.
    subscript(index: Int) -> UInt8 {
        switch index & 3 {
        case 0: bytes.0
        case 1: bytes.1
        case 2: bytes.2
        default: bytes.3
        }
    }

    /// XORs `buffer` with the key, as the bytes of a payload that starts `offset` bytes into the frame's payload
    /// (masking and unmasking are the same operation). Eight bytes at a time past the first few.
    package func apply(to buffer: UnsafeMutableRawBufferPointer, offset: Int) {
        let count = buffer.count
        guard count > 0, let base = buffer.baseAddress else { return }
        var index = 0
        // Whole words: the key repeated twice, turned so that its first byte falls on the payload's next byte.
        if count >= 16 {
            var pattern: UInt64 = 0
            withUnsafeMutableBytes(of: &pattern) { word in
                for position in 0..<8 { word[position] = self[offset + position] }
            }
            while index + 8 <= count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                base.storeBytes(of: word ^ pattern, toByteOffset: index, as: UInt64.self)
                index += 8
            }
        }
        while index < count {
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            base.storeBytes(of: byte ^ self[offset + index], toByteOffset: index, as: UInt8.self)
            index += 1
        }
    }
}
