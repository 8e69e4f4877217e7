extension Json: ExpressibleByNilLiteral {
    /// Creates `null` from `nil`.
    ///
    /// ```swift
    /// let nothing: Json = nil
    /// ```
    public init(nilLiteral: ()) {
        self.init(storage: .null)
    }
}

extension Json: ExpressibleByBooleanLiteral {
    /// Creates a Boolean from `true` or `false`.
    ///
    /// ```swift
    /// let flag: Json = true
    /// ```
    public init(booleanLiteral value: Bool) {
        self.init(storage: .bool(value))
    }
}

extension Json: ExpressibleByIntegerLiteral {
    /// Creates an integer number.
    ///
    /// ```swift
    /// let count: Json = 3
    /// ```
    public init(integerLiteral value: Int64) {
        self.init(storage: .integer(value))
    }
}

extension Json: ExpressibleByFloatLiteral {
    /// Creates a number with a fraction.
    ///
    /// ```swift
    /// let ratio: Json = 0.5
    /// ```
    public init(floatLiteral value: Double) {
        self.init(value)
    }
}

extension Json: ExpressibleByStringLiteral {
    /// Creates a string.
    ///
    /// ```swift
    /// let name: Json = "Ada"
    /// ```
    public init(stringLiteral value: String) {
        self.init(storage: .string(value))
    }
}

extension Json: ExpressibleByArrayLiteral {
    /// Creates an array.
    ///
    /// ```swift
    /// let tags: Json = ["a", 1, nil]
    /// ```
    public init(arrayLiteral elements: Json...) {
        self.init(elements)
    }
}

extension Json: ExpressibleByDictionaryLiteral {
    /// Creates an object whose members keep the literal's order; when a key repeats, the last value wins.
    ///
    /// ```swift
    /// let body: Json = ["title": "foo", "userId": 1, "tags": ["a"], "draft": nil]
    /// ```
    public init(dictionaryLiteral elements: (String, Json)...) {
        self.init(entries: elements.map { (key: $0.0, value: $0.1) })
    }
}
