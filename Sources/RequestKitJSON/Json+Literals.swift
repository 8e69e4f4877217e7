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

extension Json: ExpressibleByArrayLiteral {
    /// Creates an array; its elements are literals too, or values written `.json(value)`.
    ///
    /// ```swift
    /// let tags: Json = ["a", 1, nil, .json(existing)]
    /// ```
    public init(arrayLiteral elements: JsonLiteral...) {
        self.init(storage: .array(elements.map(\.value.storedInContainer)))
    }
}

extension Json: ExpressibleByDictionaryLiteral {
    /// Creates an object whose members keep the literal's order; when a key repeats, the last value wins.
    ///
    /// ```swift
    /// let body: Json = ["title": "foo", "userId": 1, "tags": ["a"], "draft": nil, "author": .json(author)]
    /// ```
    public init(dictionaryLiteral elements: (String, JsonLiteral)...) {
        self.init(entries: elements.map { (key: $0.0, value: $0.1.value) })
    }
}
