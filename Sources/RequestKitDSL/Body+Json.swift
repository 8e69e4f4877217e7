import RequestKitJSON
import RequestKitModel

extension Body {
    /// Sends a JSON document, written compactly with its keys in order.
    ///
    /// ```swift
    /// Body(json: ["title": "foo", "userId": 1, "tags": ["a"], "draft": nil])
    /// ```
    public init(json: Json) {
        self.init(RequestBody(json.serializedData(), contentType: .json))
    }

    /// Sends a JSON document; a dictionary or array literal with values of different types becomes one.
    ///
    /// ```swift
    /// Body(["title": "x", "count": 1, "tags": ["a", "b"]])  // {"title":"x","count":1,"tags":["a","b"]}
    /// ```
    public init(_ json: Json) {
        self.init(json: json)
    }

    /// A `[String: Any]` dictionary cannot be sent: its values may not be JSON at all. Write the literal inline,
    /// build a ``Json`` value, or send an `Encodable` type.
    ///
    /// ```swift
    /// Body(["title": "x", "count": 1])                // a literal is JSON
    /// Body(json: Json(["title": Json(string: name)]))  // built from values
    /// ```
    @available(
        *, unavailable,
        message:
            "a [String: Any] may hold values JSON cannot represent: write the literal inline, use Body(json:) with a Json value, or an Encodable type"
    )
    public init(_ dictionary: [String: Any]) {
        self.init(json: .null)
    }
}
