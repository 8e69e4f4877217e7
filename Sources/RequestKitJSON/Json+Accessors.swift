extension Json {
    /// Whether the value is JSON `null` (a missing value is not `null`).
    ///
    /// ```swift
    /// let json: Json = ["draft": nil]
    /// json.draft.isNull  // true
    /// json.other.isNull  // false
    /// ```
    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    /// Whether the value is the result of a lookup that found nothing: a missing key, an index out of range or a
    /// step into a value of another kind.
    ///
    /// ```swift
    /// let json: Json = ["draft": nil]
    /// json.draft.isMissing  // false: present, and null
    /// json.other.isMissing  // true
    /// ```
    public var isMissing: Bool {
        if case .missing = storage { return true }
        return false
    }

    /// The string, when the value is a string.
    ///
    /// ```swift
    /// Json("hi").string  // "hi"
    /// Json(1).string     // nil
    /// ```
    public var string: String? {
        if case .string(let value) = storage { return value }
        return nil
    }

    /// The Boolean, when the value is `true` or `false` (numbers are not Booleans).
    ///
    /// ```swift
    /// Json(true).bool  // true
    /// Json(1).bool     // nil
    /// ```
    public var bool: Bool? {
        if case .bool(let value) = storage { return value }
        return nil
    }

    /// The number as an `Int`, when it is a whole number that fits; `1.5` answers `nil`, `2.0` answers `2`.
    ///
    /// ```swift
    /// Json(42).int   // 42
    /// Json(1.5).int  // nil
    /// ```
    public var int: Int? {
        switch storage {
        case .integer(let value): return Int(exactly: value)
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The number as an `Int64`, when it is a whole number that fits.
    ///
    /// ```swift
    /// try Json(parsing: "-9223372036854775808").int64  // Int64.min
    /// ```
    public var int64: Int64? {
        switch storage {
        case .integer(let value): return value
        case .double(let value): return Int64(exactly: value)
        default: return nil
        }
    }

    /// The number as a `UInt64`, when it is a whole, non-negative number that fits.
    ///
    /// ```swift
    /// try Json(parsing: "18446744073709551615").uint64  // UInt64.max
    /// ```
    public var uint64: UInt64? {
        switch storage {
        case .integer(let value): return UInt64(exactly: value)
        case .double(let value): return UInt64(exactly: value)
        case .numberText(let text): return UInt64(text)
        default: return nil
        }
    }

    /// The number as a `Double`; integers convert (to the nearest `Double` beyond 2⁵³), a number beyond the
    /// range of `Double` answers `nil`.
    ///
    /// ```swift
    /// Json(3).double    // 3.0
    /// Json("3").double  // nil
    /// ```
    public var double: Double? {
        switch storage {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        case .numberText(let text):
            guard let value = Double(text), value.isFinite else { return nil }
            return value
        default: return nil
        }
    }

    /// The elements, when the value is an array.
    ///
    /// ```swift
    /// let json: Json = [1, 2]
    /// json.array?.count  // 2
    /// ```
    public var array: [Json]? {
        if case .array(let elements) = storage { return elements }
        return nil
    }

    /// The members as a dictionary, when the value is an object. A dictionary has no order; use ``entries`` to
    /// read the members in their order.
    ///
    /// ```swift
    /// let json: Json = ["a": 1]
    /// json.object?["a"]?.int  // 1
    /// ```
    public var object: [String: Json]? {
        guard case .object(let object) = storage else { return nil }
        return Dictionary(object.entries.lazy.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }

    /// The members in their order (as parsed or as written), when the value is an object.
    ///
    /// ```swift
    /// let json: Json = ["b": 1, "a": 2]
    /// json.entries?.map(\.key)  // ["b", "a"]
    /// ```
    public var entries: [(key: String, value: Json)]? {
        if case .object(let object) = storage { return object.entries.map { (key: $0.key, value: $0.value) } }
        return nil
    }
}
