/// A step of a path into a JSON value: an object key or an array index. `String` and `Int` are path elements,
/// so paths read like literals.
///
/// ```swift
/// let id = json["items", 0, "id"].int
/// ```
public protocol JsonPathElement: Sendable {
    /// The step this element stands for.
    var jsonPathComponent: JsonPathComponent { get }
}

/// One step of a path into a JSON value.
///
/// ```swift
/// let path: [JsonPathComponent] = [.key("items"), .index(0)]
/// ```
public enum JsonPathComponent: Sendable, Hashable, JsonPathElement {
    /// A member of an object.
    case key(String)
    /// An element of an array.
    case index(Int)

    /// The component itself.
    ///
    /// ```swift
    /// JsonPathComponent.index(0).jsonPathComponent  // .index(0)
    /// ```
    public var jsonPathComponent: JsonPathComponent { self }
}

extension String: JsonPathElement {
    /// The string as an object key.
    ///
    /// ```swift
    /// "id".jsonPathComponent  // .key("id")
    /// ```
    public var jsonPathComponent: JsonPathComponent { .key(self) }
}

extension Int: JsonPathElement {
    /// The integer as an array index.
    ///
    /// ```swift
    /// 0.jsonPathComponent  // .index(0)
    /// ```
    public var jsonPathComponent: JsonPathComponent { .index(self) }
}
