/// The storage of a JSON object: its entries in order, plus a hash index once the object is large.
///
/// Objects below `indexThreshold` entries (nearly all objects in practice) are searched linearly, which costs
/// less than hashing every key while parsing. From `indexThreshold` entries on, a `[String: Int]` from key to
/// position is kept up to date, so that lookups and duplicate detection stay O(1) per key even for objects with
/// many thousands of keys, and hostile input cannot make parsing quadratic.
///
/// Keys are compared by their exact Unicode code points (their UTF-8 bytes), not by Swift's canonical
/// equivalence: `{"é":1,"e\u0301":2}` has two members, as it has for every other JSON parser, so two keys a
/// server sent differently can never shadow each other.
package struct JsonObject: Sendable {
    /// The entry count from which the hash index is maintained. `hasDuplicateKeys()` relies on it being at most
    /// 127, so that its 128-slot table always has a free slot.
    static let indexThreshold = 64

    private(set) var entries: [JsonMember]
    private var index: [ExactKey: Int]?

    init(capacity: Int = 0) {
        entries = []
        entries.reserveCapacity(capacity)
    }

    /// An object of parsed members in document order; `finishParsing()` then resolves repeated keys.
    init(parsedEntries: [JsonMember]) {
        entries = parsedEntries
    }

    var count: Int { entries.count }

    /// The position of `key` in `entries`, if present.
    func position(of key: String) -> Int? {
        if let index {
            return index[ExactKey(key)]
        }
        return entries.firstIndex { $0.key.utf8.elementsEqual(key.utf8) }
    }

    subscript(key: String) -> Json? {
        guard let position = position(of: key) else { return nil }
        return entries[position].value
    }

    /// Sets the value for `key`: an existing key keeps its position and takes the new value (the last write
    /// wins), a new key is appended.
    mutating func setValue(_ value: Json, forKey key: String) {
        if let position = position(of: key) {
            entries[position].value = value
            return
        }
        entries.append(JsonMember(key: key, value: value))
        if index != nil {
            index?[ExactKey(key)] = entries.count - 1
        } else if entries.count >= Self.indexThreshold {
            buildIndex()
        }
    }

    /// Resolves repeated keys of parsed entries (the last value wins, at the first position) and builds
    /// the index of a large object.
    mutating func finishParsing() {
        let count = entries.count
        if count < 2 { return }
        if count < Self.indexThreshold {
            if hasDuplicateKeys() { removeDuplicates() }
            return
        }
        var positions = [ExactKey: Int](minimumCapacity: count)
        var hasDuplicates = false
        for position in 0..<count
        where positions.updateValue(position, forKey: ExactKey(entries[position].key)) != nil {
            hasDuplicates = true
        }
        if hasDuplicates {
            removeDuplicates()
        } else {
            index = positions
        }
    }

    /// `finishParsing()` for parsed entries whose keys' fingerprints the parser already has
    /// (`JsonKeyCache.Summary.fingerprint`, in the order of the entries), so that a small object's keys are not
    /// read again to look for repeats.
    mutating func finishParsing(fingerprints: UnsafeBufferPointer<UInt64>) {
        let count = entries.count
        guard count >= 2, count < Self.indexThreshold, fingerprints.count == count else {
            finishParsing()
            return
        }
        let hasDuplicates = JsonKeyCache.hasRepeatedKey(fingerprints) { earlier, later in
            entries[earlier].key.utf8.elementsEqual(entries[later].key.utf8)
        }
        if hasDuplicates { removeDuplicates() }
    }

    /// Whether two entries share a key; for objects below `indexThreshold` entries.
    ///
    /// The keys' fingerprints go into a 128-slot open-addressing table on the stack (at most 63 entries, so it
    /// never fills), and only keys with equal fingerprints are compared as strings. Even keys crafted to collide
    /// cost at most a few thousand integer comparisons, since the object is small.
    private func hasDuplicateKeys() -> Bool {
        let count = entries.count
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { fingerprints in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { slots in
                slots.initialize(repeating: 0)
                for position in 0..<count {
                    let fingerprint = Self.fingerprint(of: entries[position].key)
                    fingerprints[position] = fingerprint
                    var slot = Int(truncatingIfNeeded: (fingerprint &* 0xFF51_AFD7_ED55_8CCD) &>> 57)
                    while slots[slot] != 0 {
                        let other = Int(slots[slot]) - 1
                        if fingerprints[other] == fingerprint
                            && entries[other].key.utf8.elementsEqual(entries[position].key.utf8)
                        {
                            return true
                        }
                        slot = (slot + 1) & 127
                    }
                    slots[slot] = UInt8(truncatingIfNeeded: position + 1)
                }
                return false
            }
        }
    }

    /// A cheap summary of a key: its UTF-8 length and up to its first and last eight bytes. Equal keys have
    /// equal fingerprints; keys that differ in length or in those bytes have different ones.
    private static func fingerprint(of key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { utf8 in
            let count = utf8.count
            var head: UInt64 = 0
            var tail: UInt64 = 0
            let headCount = min(count, 8)
            let tailCount = min(count - headCount, 8)
            withUnsafeMutableBytes(of: &head) { head in
                head.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[0..<headCount])))
            }
            withUnsafeMutableBytes(of: &tail) { tail in
                tail.copyMemory(
                    from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: utf8[(count - tailCount)...])))
            }
            return head &* 0x9E37_79B9_7F4A_7C15 ^ tail ^ UInt64(truncatingIfNeeded: count) &<< 56
        }
    }

    private mutating func removeDuplicates() {
        let parsed = entries
        entries = []
        index = nil
        for member in parsed {
            setValue(member.value, forKey: member.key)
        }
    }

    /// Removes `key` if present.
    mutating func removeValue(forKey key: String) {
        guard let position = position(of: key) else { return }
        entries.remove(at: position)
        index = nil
        if entries.count >= Self.indexThreshold {
            buildIndex()
        }
    }

    private mutating func buildIndex() {
        var positions = [ExactKey: Int](minimumCapacity: entries.count)
        for position in entries.indices {
            positions[ExactKey(entries[position].key)] = position
        }
        index = positions
    }
}

/// A key that is equal to another only when their UTF-8 bytes are, and hashes those bytes.
private struct ExactKey: Hashable, Sendable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (left: ExactKey, right: ExactKey) -> Bool { left.text.utf8.elementsEqual(right.text.utf8) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
