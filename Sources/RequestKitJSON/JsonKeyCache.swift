import Foundation

/// The object keys a parse has already made into `String`s, so that a key that repeats through a document (as
/// keys do in arrays of objects) is created and validated once, then shared.
///
/// A table of slots in pairs, indexed by a hash of the key's bytes; a slot holds a key with its length and its
/// first and last eight bytes. A hit is confirmed by comparing those (which cover a key of up to 16 bytes
/// entirely) and, for a longer key, the bytes between them, so a collision only costs a new `String`. A new key
/// takes the first slot of its pair and moves the key there to the second, so two keys that share a pair both
/// stay. The table has 16 to 1,024 slots by the size of the document (one per 64 bytes), so that small documents
/// pay little for it and the hundred or so distinct keys of a large one rarely meet. Keys with escapes are not
/// cached (they are decoded first), nor keys longer than 64 bytes. A slot keeps its summary next to its key, so a
/// lookup touches one place in memory; the common case, a key of up to 16 bytes found in the first slot of its pair,
/// is inlined into the parser.
struct JsonKeyCache {
    private static let longestKey = 64
    /// The most slots a table has.
    private static let mostSlots = 1024

    /// What a slot remembers of its key's bytes.
    struct Summary: Equatable {
        var head: UInt64
        var tail: UInt64
        var count: Int

        /// The length and up to the first and last eight bytes of `text` (the last ones only past the first
        /// eight): equal summaries of texts of at most 16 bytes mean equal texts. A text shorter than eight bytes
        /// is read as its first and last four, or two, bytes (overlapping), which also cover all of it.
        @inline(__always)
        init(of text: UnsafeRawBufferPointer) {
            count = text.count
            head = 0
            tail = 0
            if count >= 8 {
                head = text.loadUnaligned(as: UInt64.self)
                if count > 8 {
                    tail = text.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                }
            } else if count >= 4 {
                head =
                    UInt64(text.loadUnaligned(as: UInt32.self))
                    | UInt64(text.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
            } else if count >= 2 {
                head =
                    UInt64(text.loadUnaligned(as: UInt16.self))
                    | UInt64(text.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)) << 16
            } else if count == 1 {
                head = UInt64(text[0])
            }
        }

        /// The summary mixed into one number: equal texts have equal fingerprints.
        var fingerprint: UInt64 {
            (head &* 0x9E37_79B9_7F4A_7C15 ^ tail) &* 0xFF51_AFD7_ED55_8CCD ^ UInt64(truncatingIfNeeded: count)
        }
    }

    /// A key with what its slot remembers of its bytes, side by side so that a lookup reads one place: their
    /// summary, and where the key was first read in the document, to compare the bytes between its first and last
    /// eight with those of a longer key.
    struct Slot {
        var summary: Summary
        var key: String?
        var bytes: UnsafeRawPointer?
    }

    /// The slots, allocated at the first key, so that a parser that never meets an object costs nothing.
    private final class Table {
        let slotCount: Int
        let slots: UnsafeMutablePointer<Slot>

        init(slotCount: Int) {
            self.slotCount = slotCount
            slots = .allocate(capacity: slotCount)
            slots.initialize(
                repeating: Slot(
                    summary: Summary(of: UnsafeRawBufferPointer(start: nil, count: 0)), key: nil, bytes: nil),
                count: slotCount)
        }

        deinit {
            slots.deinitialize(count: slotCount)
            slots.deallocate()
        }
    }

    private let slotCount: Int
    /// Frees the slots; `slots` points into it.
    private var table: Table?
    private var slots: UnsafeMutablePointer<Slot>?

    /// A cache for a document of `documentSize` bytes.
    init(documentSize: Int = 0) {
        var slots = 16
        while slots < Self.mostSlots && slots * 64 < documentSize {
            slots *= 2
        }
        slotCount = slots
    }

    /// The key whose UTF-8 bytes are `text`, or nil when they are not valid UTF-8 (a cached key matches only
    /// bytes that were valid when it was made). `isASCII` says that `text` has no byte beyond ASCII, so it needs
    /// no UTF-8 check. `summary` is `Summary(of: text)`.
    ///
    /// `text` lies in the document the cache is used for, which outlives it: the slots remember where their keys
    /// were read in it.
    @inline(__always)
    mutating func key(for text: UnsafeRawBufferPointer, summary: Summary, isASCII: Bool) -> String? {
        if let slots {
            let first = Int(truncatingIfNeeded: summary.fingerprint &>> 32) & (slotCount - 2)
            if slots[first].summary == summary, let cached = slots[first].key,
                text.count <= 16 || Self.middlesMatch(text, slots[first].bytes)
            {
                return cached
            }
        }
        return slowKey(for: text, summary: summary, isASCII: isASCII)
    }

    /// Whether the bytes of `text` between its first and last eight equal those at `cached` (the same number of
    /// bytes, whose summary is the same); for keys of 17 to 64 bytes.
    @inline(__always)
    private static func middlesMatch(_ text: UnsafeRawBufferPointer, _ cached: UnsafeRawPointer?) -> Bool {
        guard let cached, let base = text.baseAddress, text.count <= longestKey else { return false }
        var offset = 8
        let end = text.count - 8
        while offset < end {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                != cached.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            {
                return false
            }
            offset += 8
        }
        return true
    }

    /// `key(for:summary:isASCII:)` beyond a hit in the first slot of a pair.
    private mutating func slowKey(for text: UnsafeRawBufferPointer, summary: Summary, isASCII: Bool) -> String? {
        guard text.count <= Self.longestKey, text.baseAddress != nil else {
            return Self.string(text, isASCII: isASCII)
        }
        if table == nil {
            let table = Table(slotCount: slotCount)
            self.table = table
            slots = table.slots
        }
        guard let slots else { return Self.string(text, isASCII: isASCII) }
        let first = Int(truncatingIfNeeded: summary.fingerprint &>> 32) & (slotCount - 2)
        for slot in first...first + 1 where slots[slot].summary == summary {
            guard let cached = slots[slot].key else { continue }
            if text.count <= 16 || Self.middlesMatch(text, slots[slot].bytes) {
                return cached
            }
        }
        guard let key = Self.string(text, isASCII: isASCII) else { return nil }
        slots[first + 1] = slots[first]
        slots[first] = Slot(summary: summary, key: key, bytes: text.baseAddress)
        return key
    }

    /// Whether two of `fingerprints` (of the keys of one object, fewer than 128) are equal and `same` confirms
    /// that those two keys are (it is given their positions, the earlier first). Up to eight keys are compared
    /// pairwise; more go into a 128-slot table on the stack, so even keys crafted to collide cost at most a few
    /// thousand comparisons.
    @inline(__always)
    static func hasRepeatedKey(_ fingerprints: UnsafeBufferPointer<UInt64>, same: (Int, Int) -> Bool) -> Bool {
        let count = fingerprints.count
        guard count >= 2 else { return false }
        if count <= 8 {
            for later in 1..<count {
                for earlier in 0..<later where fingerprints[earlier] == fingerprints[later] && same(earlier, later) {
                    return true
                }
            }
            return false
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { slots in
            slots.initialize(repeating: 0)
            for position in 0..<count {
                let fingerprint = fingerprints[position]
                var slot = Int(truncatingIfNeeded: fingerprint &>> 57)
                while slots[slot] != 0 {
                    let other = Int(slots[slot]) - 1
                    if fingerprints[other] == fingerprint && same(other, position) {
                        return true
                    }
                    slot = (slot + 1) & 127
                }
                slots[slot] = UInt8(truncatingIfNeeded: position + 1)
            }
            return false
        }
    }

    private static func string(_ text: UnsafeRawBufferPointer, isASCII: Bool) -> String? {
        isASCII ? String(decoding: text, as: UTF8.self) : JsonParser.validString(text)
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
