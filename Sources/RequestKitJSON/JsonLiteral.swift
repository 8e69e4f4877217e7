/// A value written inside a ``Json`` array or dictionary literal: a string, a number, a Boolean, `nil`, a nested
/// array or dictionary literal, or an existing value as `.json(value)`.
///
/// `Json` itself takes no string literal, so that `Json("[1, 2]")` is never mistaken for a string value; the
/// elements of its collection literals are `JsonLiteral`s, where a string literal is a string.
///
/// ```swift
/// let author = Json(string: name)
/// let body: Json = ["title": "x", "tags": ["a", "b"], "n": 1, "draft": nil, "author": .json(author)]
/// let greeting: Json = ["text": "Hello, \(name)"]   // interpolation makes a string
/// ```
public struct JsonLiteral: Sendable {
    /// The value the literal stands for.
    let value: Json

    private init(value: Json) {
        self.value = value
    }

    /// An existing ``Json`` value inside a literal.
    ///
    /// ```swift
    /// let wrapped: Json = ["data": .json(response), "count": 2]
    /// ```
    public static func json(_ value: Json) -> JsonLiteral {
        JsonLiteral(value: value)
    }
}

extension JsonLiteral: ExpressibleByNilLiteral {
    /// `null`.
    ///
    /// ```swift
    /// let body: Json = ["draft": nil]
    /// ```
    public init(nilLiteral: ()) {
        value = .null
    }
}

extension JsonLiteral: ExpressibleByBooleanLiteral {
    /// A Boolean.
    ///
    /// ```swift
    /// let body: Json = ["done": true]
    /// ```
    public init(booleanLiteral value: Bool) {
        self.value = Json(value)
    }
}

extension JsonLiteral: ExpressibleByIntegerLiteral {
    /// An integer number.
    ///
    /// ```swift
    /// let body: Json = ["userId": 1]
    /// ```
    public init(integerLiteral value: Int64) {
        self.value = Json(value)
    }
}

extension JsonLiteral: ExpressibleByFloatLiteral {
    /// A number with a fraction.
    ///
    /// ```swift
    /// let body: Json = ["ratio": 0.5]
    /// ```
    public init(floatLiteral value: Double) {
        self.value = Json(value)
    }
}

extension JsonLiteral: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    /// A string.
    ///
    /// ```swift
    /// let body: Json = ["title": "foo", "greeting": "Hi \(name)"]
    /// ```
    public init(stringLiteral value: String) {
        self.value = Json(string: value)
    }
}

extension JsonLiteral: ExpressibleByArrayLiteral {
    /// A nested array.
    ///
    /// ```swift
    /// let body: Json = ["tags": ["a", 1]]
    /// ```
    public init(arrayLiteral elements: JsonLiteral...) {
        value = Json(storage: .array(elements.map(\.value.storedInContainer)))
    }
}

extension JsonLiteral: ExpressibleByDictionaryLiteral {
    /// A nested object, keeping the literal's order.
    ///
    /// ```swift
    /// let body: Json = ["author": ["name": "Ada"]]
    /// ```
    public init(dictionaryLiteral elements: (String, JsonLiteral)...) {
        value = Json(entries: elements.map { (key: $0.0, value: $0.1.value) })
    }
}
