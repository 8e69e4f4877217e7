extension Json {
    /// The value written as compact JSON text, as swift-request's `stringified` was: the same text as
    /// ``serializedString(options:)``.
    ///
    /// ```swift
    /// Body(Json(["title": "foo", "userId": 1]).stringified)  // {"title":"foo","userId":1}
    /// ```
    public var stringified: String {
        serializedString()
    }

    /// The string, when the value is a string: swift-request's spelling of ``string``.
    ///
    /// ```swift
    /// json.name.string  // String?
    /// ```
    @available(*, deprecated, renamed: "string", message: "Json.string is already optional")
    public var stringOptional: String? { string }

    /// The number as an `Int`: swift-request's spelling of ``int``.
    ///
    /// ```swift
    /// json.id.int  // Int?
    /// ```
    @available(*, deprecated, renamed: "int", message: "Json.int is already optional")
    public var intOptional: Int? { int }

    /// The number as a `Double`: swift-request's spelling of ``double``.
    ///
    /// ```swift
    /// json.ratio.double  // Double?
    /// ```
    @available(*, deprecated, renamed: "double", message: "Json.double is already optional")
    public var doubleOptional: Double? { double }

    /// The Boolean: swift-request's spelling of ``bool``.
    ///
    /// ```swift
    /// json.done.bool  // Bool?
    /// ```
    @available(*, deprecated, renamed: "bool", message: "Json.bool is already optional")
    public var boolOptional: Bool? { bool }

    /// The elements, when the value is an array: swift-request's spelling of ``array``.
    ///
    /// ```swift
    /// json.tags.array  // [Json]?
    /// ```
    @available(*, deprecated, renamed: "array", message: "Json.array is already optional")
    public var arrayOptional: [Json]? { array }
}
