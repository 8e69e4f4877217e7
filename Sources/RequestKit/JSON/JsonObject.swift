/// The storage of a JSON object: its entries in order, plus a hash index once the object is large.
///
/// Objects below `indexThreshold` entries (nearly all objects in practice) are searched linearly, which costs
/// less than hashing every key while parsing. From `indexThreshold` entries on, a `[String: Int]` from key to
/// position is kept up to date, so that lookups and duplicate detection stay O(1) per key even for objects with
/// many thousands of keys, and hostile input cannot make parsing quadratic.
struct JsonObject: Sendable {
    /// The entry count from which the hash index is maintained.
    static let indexThreshold = 64

    private(set) var entries: [(key: String, value: Json)]
    private var index: [String: Int]?

    init(capacity: Int = 0) {
        entries = []
        entries.reserveCapacity(capacity)
    }

    var count: Int { entries.count }

    /// The position of `key` in `entries`, if present.
    func position(of key: String) -> Int? {
        if let index {
            return index[key]
        }
        return entries.firstIndex { $0.key == key }
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
        entries.append((key: key, value: value))
        if index != nil {
            index?[key] = entries.count - 1
        } else if entries.count >= Self.indexThreshold {
            buildIndex()
        }
    }

    /// Appends an entry without looking for an earlier one with the same key; `finishParsing()` must run after
    /// the last append.
    mutating func appendParsed(key: String, value: Json) {
        entries.append((key: key, value: value))
    }

    /// Resolves duplicate keys left by `appendParsed` (the last value wins, at the first position) and builds
    /// the index of a large object.
    ///
    /// Below `indexThreshold` entries, keys are compared pairwise, but through a 64-bit fingerprint first, so
    /// that the quadratic part of the search is integer comparisons; only keys with equal fingerprints are
    /// compared as strings. From `indexThreshold` on, the index finds duplicates in linear time.
    mutating func finishParsing() {
        let count = entries.count
        if count < 2 { return }
        if count < Self.indexThreshold {
            let hasDuplicates = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: count) { fingerprints in
                for later in 0..<count {
                    let fingerprint = Self.fingerprint(of: entries[later].key)
                    for earlier in 0..<later where fingerprints[earlier] == fingerprint {
                        if entries[earlier].key == entries[later].key { return true }
                    }
                    fingerprints[later] = fingerprint
                }
                return false
            }
            if hasDuplicates { removeDuplicates() }
            return
        }
        var positions = [String: Int](minimumCapacity: count)
        var hasDuplicates = false
        for position in 0..<count where positions.updateValue(position, forKey: entries[position].key) != nil {
            hasDuplicates = true
        }
        if hasDuplicates {
            removeDuplicates()
        } else {
            index = positions
        }
    }

    /// A cheap summary of a key: its UTF-8 length and up to its first and last eight bytes. Equal keys have
    /// equal fingerprints; different keys almost always differ.
    private static func fingerprint(of key: String) -> UInt64 {
        var key = key
        return key.withUTF8 { utf8 in
            var fingerprint = UInt64(truncatingIfNeeded: utf8.count) &* 0x9E37_79B9_7F4A_7C15
            for byte in utf8.prefix(8) {
                fingerprint = (fingerprint ^ UInt64(byte)) &* 0x100_0000_01B3
            }
            for byte in utf8.dropFirst(8).suffix(8) {
                fingerprint = (fingerprint ^ UInt64(byte)) &* 0x100_0000_01B3
            }
            return fingerprint
        }
    }

    private mutating func removeDuplicates() {
        let parsed = entries
        entries = []
        index = nil
        for (key, value) in parsed {
            setValue(value, forKey: key)
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
        var positions = [String: Int](minimumCapacity: entries.count)
        for position in entries.indices {
            positions[entries[position].key] = position
        }
        index = positions
    }
}
