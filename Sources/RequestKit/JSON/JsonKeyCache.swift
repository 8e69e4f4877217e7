import Foundation

/// The object keys a parse has already made into `String`s, so that a key that repeats through a document (as
/// keys do in arrays of objects) is created and validated once, then shared.
///
/// A fixed table of 256 slots indexed by a fingerprint of the key's bytes; a slot holds the last key that fell
/// into it, and a hit is confirmed by comparing the bytes, so a collision only costs a new `String`. Keys with
/// escapes are not cached (they are decoded first), nor keys longer than 64 bytes.
struct JsonKeyCache {
    private static let slotCount = 256
    private static let longestKey = 64

    /// Allocated at the first key, so that a parser that never meets an object costs nothing.
    private var fingerprints: [UInt64] = []
    private var keys: [String?] = []

    /// The key whose UTF-8 bytes (already validated) are `text`.
    mutating func key(for text: UnsafeRawBufferPointer) -> String {
        guard text.count <= Self.longestKey else {
            return String(decoding: text, as: UTF8.self)
        }
        if keys.isEmpty {
            fingerprints = Array(repeating: 0, count: Self.slotCount)
            keys = Array(repeating: nil, count: Self.slotCount)
        }
        let fingerprint = Self.fingerprint(of: text)
        let slot = Int(truncatingIfNeeded: (fingerprint &* 0xFF51_AFD7_ED55_8CCD) &>> 56)
        if fingerprints[slot] == fingerprint, var cached = keys[slot] {
            let isSame = cached.withUTF8 { utf8 -> Bool in
                guard utf8.count == text.count else { return false }
                guard let cachedBytes = utf8.baseAddress, let textBytes = text.baseAddress else { return true }
                return memcmp(cachedBytes, textBytes, text.count) == 0
            }
            if isSame {
                return cached
            }
        }
        let key = String(decoding: text, as: UTF8.self)
        fingerprints[slot] = fingerprint
        keys[slot] = key
        return key
    }

    /// The length of a key and up to its first and last eight bytes, mixed (the typed decoder's key tables use it
    /// too).
    static func fingerprint(of text: UnsafeRawBufferPointer) -> UInt64 {
        let count = text.count
        var head: UInt64 = 0
        var tail: UInt64 = 0
        if count >= 8 {
            head = text.loadUnaligned(as: UInt64.self)
            tail = text.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for offset in 0..<count {
                head = head << 8 | UInt64(text[offset])
            }
        }
        return head &* 0x9E37_79B9_7F4A_7C15 ^ tail ^ UInt64(truncatingIfNeeded: count) &<< 56
    }
}
