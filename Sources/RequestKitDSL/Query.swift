import RequestKitModel

/// Adds query items. Several `Query` components add up in order, after any query already in the `Url`.
///
/// Names and values are percent-encoded per RFC 3986: everything but letters, digits and `-._~` is encoded,
/// so `+`, `&`, `=`, `/`, `?`, `#` and non-ASCII arrive intact, and a space becomes `%20`.
///
/// ```swift
/// Query("q", value: "swift & co")                 // q=swift%20%26%20co
/// Query("page", value: 2)
/// Query("tag", values: ["a", "b"])                // tag=a&tag=b
/// Query(["sort": "asc", "limit": "10"])           // limit=10&sort=asc (sorted by name)
/// Query([("b", "2"), ("flag", nil)])              // b=2&flag
/// ```
public struct Query: RequestComponent {
    /// The items this component adds, in order.
    public let items: [QueryItem]

    /// Adds one item; a nil value adds a bare name.
    ///
    /// ```swift
    /// Query("userId", value: "1")
    /// ```
    public init(_ name: String, value: String?) {
        items = [QueryItem(name: name, value: value)]
    }

    /// Adds one item from a number, a Boolean or any other value with a lossless text form.
    ///
    /// ```swift
    /// Query("limit", value: 50)
    /// Query("archived", value: false)
    /// ```
    public init<Value: LosslessStringConvertible>(_ name: String, value: Value?) {
        items = [QueryItem(name: name, value: value?.description)]
    }

    /// Adds the name once per value: `tag=a&tag=b`.
    ///
    /// ```swift
    /// Query("id", values: [1, 2, 3])
    /// ```
    public init<Value: LosslessStringConvertible>(_ name: String, values: [Value]) {
        items = values.map { QueryItem(name: name, value: $0.description) }
    }

    /// Adds items from a dictionary, sorted by name so the URL is the same on every run.
    ///
    /// ```swift
    /// Query(["userId": "1", "completed": "false"])
    /// ```
    public init(_ dictionary: [String: String]) {
        items = dictionary.sorted { $0.key < $1.key }.map { QueryItem(name: $0.key, value: $0.value) }
    }

    /// Adds items in the order given; a nil value adds a bare name.
    ///
    /// ```swift
    /// Query([("a", "1"), ("flag", nil)])
    /// ```
    public init(_ pairs: [(String, String?)]) {
        items = pairs.map { QueryItem(name: $0.0, value: $0.1) }
    }

    /// Adds prepared items.
    ///
    /// ```swift
    /// Query(items: [QueryItem(name: "a", value: "1")])
    /// ```
    public init(items: [QueryItem]) {
        self.items = items
    }

    public func apply(to parts: inout RequestParts) {
        parts.queryItems += items
    }
}
