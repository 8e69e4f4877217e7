/// A JSON value: null, a Boolean, a number, a string, an array or an object.
///
/// `Json` is a small `Sendable` value. Reading never fails: a missing key, a value of another kind or an index
/// out of range gives back a *missing* value whose accessors all answer `nil`, so lookups chain safely.
///
/// ```swift
/// let json = try Json(parsing: #"{"user": {"name": "Ada", "langs": ["en", "fr"]}}"#)
/// json.user.name.string        // "Ada"
/// json["user", "langs", 1].string  // "fr"
/// json.user.age.int            // nil (the key is missing)
/// ```
///
/// Values are also built from literals, and they can be changed in place:
///
/// ```swift
/// var body: Json = ["title": "foo", "userId": 1, "tags": ["a"], "draft": nil]
/// body.author.name = Json(string: "Ada")  // creates the "author" object
/// body.serializedString()   // {"title":"foo","userId":1,"tags":["a"],"draft":null,"author":{"name":"Ada"}}
/// ```
///
/// Object keys keep the order in which they were parsed or written, and are compared by their exact Unicode
/// code points, not by Swift's canonical equivalence: `{"é":1,"e\u0301":2}` has two members, so two keys a
/// server spelled differently never shadow each other. Two values are equal when they have the same kind and
/// content; numbers compare by value (`1` equals `1.0`), objects ignore key order.
///
/// Members named like an accessor (`string`, `int`, `int64`, `uint64`, `double`, `bool`, `array`, `object`,
/// `entries`, `isNull`, `isMissing`, `description`) resolve to the accessor; reach such keys with the key
/// subscript: `json["string"]`.
@dynamicMemberLookup
public struct Json: Sendable {
    /// How a value is held. `missing` is what a failed lookup answers; it is never stored inside a container.
    package enum Storage: Sendable {
        case missing
        case null
        case bool(Bool)
        /// An integer that fits in `Int64`.
        case integer(Int64)
        /// A finite number with a fraction or an exponent.
        case double(Double)
        /// A number beyond the range of `Int64` and `Double`, kept as its exact JSON text.
        case numberText(String)
        case string(String)
        case array([Json])
        case object(JsonObject)
    }

    package var storage: Storage

    init(storage: Storage) {
        self.storage = storage
    }

    /// The JSON `null` value.
    ///
    /// ```swift
    /// let nothing = Json.null
    /// nothing.isNull  // true
    /// ```
    public static let null = Json(storage: .null)

    /// The value a failed lookup answers.
    static let missing = Json(storage: .missing)

    /// Creates a Boolean value.
    ///
    /// ```swift
    /// let flag = Json(true)
    /// ```
    public init(_ value: Bool) {
        storage = .bool(value)
    }

    /// Creates a string value; to parse JSON text, use `try Json(text)`.
    ///
    /// ```swift
    /// let name = Json(string: userName)   // "Ada", not parsed
    /// let body: Json = ["name": "Ada"]     // inside a literal, a string literal is a string value
    /// ```
    public init(string value: String) {
        storage = .string(value)
    }

    /// Creates a number from a floating-point value; a value that is not finite becomes `null`, which is what
    /// JSON can express.
    ///
    /// ```swift
    /// let ratio = Json(0.25)
    /// ```
    public init(_ value: Double) {
        storage = value.isFinite ? .double(value) : .null
    }

    /// Creates an exact number from any integer, including values beyond `Int64`.
    ///
    /// ```swift
    /// let id = Json(UInt64.max)
    /// id.uint64  // 18446744073709551615
    /// ```
    public init<Integer: BinaryInteger>(_ value: Integer) {
        if let exact = Int64(exactly: value) {
            storage = .integer(exact)
        } else {
            storage = .numberText(String(value))
        }
    }

    /// Creates an array value from a literal.
    ///
    /// ```swift
    /// let list = Json([1, "two", nil])
    /// ```
    public init(_ elements: [JsonLiteral]) {
        storage = .array(elements.map(\.value.storedInContainer))
    }

    /// Creates an array value from values.
    ///
    /// ```swift
    /// let list = Json(users.map { Json(string: $0.name) })
    /// ```
    public init<Elements: Sequence<Json>>(_ elements: Elements) {
        storage = .array(elements.map(\.storedInContainer))
    }

    /// Creates an object from key-value pairs, keeping their order; when a key repeats, the last value wins.
    ///
    /// ```swift
    /// let point = Json(entries: [(key: "x", value: 1), (key: "y", value: 2)])
    /// ```
    public init(entries: [(key: String, value: Json)]) {
        var object = JsonObject(capacity: entries.count)
        for (key, value) in entries {
            object.setValue(value.storedInContainer, forKey: key)
        }
        storage = .object(object)
    }

    /// Creates an object from a dictionary literal, as swift-request's `Json([…])` did; keys are sorted so that
    /// the result does not depend on hashing (a `let body: Json = [...]` literal keeps its order).
    ///
    /// ```swift
    /// let post = Json(["title": "foo", "userId": 1])  // {"title":"foo","userId":1}
    /// ```
    public init(_ object: [String: JsonLiteral]) {
        self.init(entries: object.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value.value) })
    }

    /// Creates an object from a dictionary of values; keys are sorted so that the result does not depend on
    /// hashing.
    ///
    /// ```swift
    /// let headers = Json(response.headers.dictionary.mapValues { Json(string: $0) })
    /// ```
    public init<Members: Collection<(key: String, value: Json)>>(_ object: Members) {
        self.init(entries: object.sorted { $0.key < $1.key })
    }

    /// The value as it is kept inside an array or an object: a missing value becomes `null`.
    var storedInContainer: Json {
        if case .missing = storage { return .null }
        return self
    }
}
