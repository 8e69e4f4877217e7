extension Json: Hashable {
    /// Whether two values have the same kind and content. Numbers compare by value, so `1` equals `1.0`;
    /// objects compare their members regardless of order; a missing value equals only a missing value.
    ///
    /// ```swift
    /// try Json(parsing: #"{"a":1,"b":2.0}"#) == ["b": 2, "a": 1]  // true
    /// ```
    public static func == (lhs: Json, rhs: Json) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.missing, .missing), (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.integer(let left), .integer(let right)):
            return left == right
        case (.double(let left), .double(let right)):
            return left == right
        case (.integer(let integer), .double(let double)), (.double(let double), .integer(let integer)):
            return Int64(exactly: double) == integer
        case (.numberText(let left), .numberText(let right)):
            return left == right
        case (.string(let left), .string(let right)):
            return left == right
        case (.array(let left), .array(let right)):
            return left == right
        case (.object(let left), .object(let right)):
            guard left.count == right.count else { return false }
            return left.entries.allSatisfy { entry in right[entry.key] == entry.value }
        default:
            return false
        }
    }

    /// Hashes the value consistently with `==`: equal numbers hash alike, and object members hash regardless
    /// of order.
    ///
    /// ```swift
    /// let seen: Set<Json> = [1, 1.0, "1"]  // two elements
    /// ```
    public func hash(into hasher: inout Hasher) {
        switch storage {
        case .missing:
            hasher.combine(0 as UInt8)
        case .null:
            hasher.combine(1 as UInt8)
        case .bool(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case .double(let value):
            if let integer = Int64(exactly: value) {
                hasher.combine(3 as UInt8)
                hasher.combine(integer)
            } else {
                hasher.combine(4 as UInt8)
                hasher.combine(value)
            }
        case .numberText(let text):
            hasher.combine(5 as UInt8)
            hasher.combine(text)
        case .string(let value):
            hasher.combine(6 as UInt8)
            hasher.combine(value)
        case .array(let elements):
            hasher.combine(7 as UInt8)
            hasher.combine(elements)
        case .object(let object):
            hasher.combine(8 as UInt8)
            hasher.combine(object.count)
            var membersHash = 0
            for member in object.entries {
                var memberHasher = Hasher()
                memberHasher.combine(member.key)
                memberHasher.combine(member.value)
                membersHash ^= memberHasher.finalize()
            }
            hasher.combine(membersHash)
        }
    }
}
