/// An ordered list of HTTP header fields with case-insensitive lookup by name.
///
/// Order and spelling are kept as added; lookups ignore ASCII case.
///
/// ```swift
/// var headers = HTTPHeaders()
/// headers.set("Accept", "application/json")
/// headers.add("Cache-Control", "no-cache")
/// headers["accept"]  // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in order.
    public private(set) var fields: [HTTPHeader]

    /// Creates an empty header list.
    ///
    /// ```swift
    /// let headers = HTTPHeaders()
    /// ```
    public init() { fields = [] }

    /// Creates a header list from fields, keeping their order.
    ///
    /// ```swift
    /// let headers = HTTPHeaders([HTTPHeader(name: "Accept", value: "text/plain")])
    /// ```
    public init(_ fields: [HTTPHeader]) { self.fields = fields }

    /// Creates a header list from a literal.
    ///
    /// ```swift
    /// let headers: HTTPHeaders = ["Accept": "application/json"]
    /// ```
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// The value of the first field with this name, ignoring case; setting replaces every field of that name.
    ///
    /// ```swift
    /// headers["content-type"] = "text/plain"
    /// ```
    public subscript(name: String) -> String? {
        get { fields.first { $0.hasName(name) }?.value }
        set {
            if let newValue { set(name, newValue) } else { remove(name) }
        }
    }

    /// Every value of fields with this name, in order.
    ///
    /// ```swift
    /// let cookies = response.headers.values(for: "Set-Cookie")
    /// ```
    public func values(for name: String) -> [String] {
        fields.filter { $0.hasName(name) }.map(\.value)
    }

    /// Whether a field with this name is present, ignoring case.
    ///
    /// ```swift
    /// if headers.contains("Authorization") { … }
    /// ```
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.hasName(name) }
    }

    /// Replaces every field with this name by one field, at the position of the first.
    ///
    /// ```swift
    /// headers.set("Accept", "text/html")
    /// ```
    public mutating func set(_ name: String, _ value: String) {
        guard let first = fields.firstIndex(where: { $0.hasName(name) }) else {
            fields.append(HTTPHeader(name: name, value: value))
            return
        }
        fields[first] = HTTPHeader(name: name, value: value)
        var index = fields.index(after: first)
        while index < fields.endIndex {
            if fields[index].hasName(name) { fields.remove(at: index) } else { index += 1 }
        }
    }

    /// Appends a field, keeping any earlier fields of the same name.
    ///
    /// ```swift
    /// headers.add("Cookie", "a=1")
    /// ```
    public mutating func add(_ name: String, _ value: String) {
        fields.append(HTTPHeader(name: name, value: value))
    }

    /// Removes every field with this name.
    ///
    /// ```swift
    /// headers.remove("Authorization")
    /// ```
    public mutating func remove(_ name: String) {
        fields.removeAll { $0.hasName(name) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPHeader]> { fields.makeIterator() }

    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

/// One HTTP header field: a name and a value.
///
/// ```swift
/// let field = HTTPHeader(name: "Accept", value: "application/json")
/// ```
public struct HTTPHeader: Sendable, Hashable {
    /// The field name as written.
    public var name: String
    /// The field value.
    public var value: String

    /// Creates a field.
    ///
    /// ```swift
    /// let field = HTTPHeader(name: "X-Request-ID", value: "42")
    /// ```
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Whether the field's name equals `other`, ignoring ASCII case.
    package func hasName(_ other: String) -> Bool {
        HTTPSyntax.equalsIgnoringCase(name, other)
    }
}
