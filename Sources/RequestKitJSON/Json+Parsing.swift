import Foundation

extension Json {
    /// Parses a JSON document from UTF-8 bytes.
    ///
    /// The document is one value of any kind, optionally preceded by a UTF-8 byte order mark and surrounded by
    /// whitespace. When an object repeats a key, the last value wins, at the position of the first.
    ///
    /// ```swift
    /// let json = try Json(parsing: response.body)
    /// ```
    ///
    /// - Parameters:
    ///   - data: The UTF-8 bytes of the document.
    ///   - options: Limits for parsing.
    /// - Throws: ``JsonParsingError`` saying what was expected and where, when the bytes are not valid JSON.
    public init(parsing data: Data, options: ParsingOptions = ParsingOptions()) throws(JsonParsingError) {
        let result = data.withUnsafeBytes { buffer in
            Result { () throws(JsonParsingError) in try JsonParser.parse(buffer, options: options) }
        }
        self = try result.get()
    }

    /// Parses a JSON document from a string.
    ///
    /// ```swift
    /// let json = try Json(parsing: #"{"id": 1}"#)
    /// ```
    ///
    /// - Parameters:
    ///   - text: The document.
    ///   - options: Limits for parsing.
    /// - Throws: ``JsonParsingError`` when the text is not valid JSON.
    public init(parsing text: String, options: ParsingOptions = ParsingOptions()) throws(JsonParsingError) {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JsonParsingError) in
                try JsonParser.parse(UnsafeRawBufferPointer(buffer), options: options)
            }
        }
        self = try result.get()
    }

    /// Parses JSON text: what `try Json(text)` means, for a variable and a literal alike.
    ///
    /// ```swift
    /// let json = try Json("{\"firstName\":\"Carson\"}")
    /// json.firstName.string              // "Carson"
    /// let name = Json(string: text)      // the text itself, as a string value
    /// ```
    ///
    /// `Json` takes no string literal, so `Json("[1, 2]")` always parses (and needs `try`); a string value is
    /// `Json(string:)`, or a string literal inside an array or dictionary literal.
    ///
    /// - Parameter text: The document.
    /// - Throws: ``JsonParsingError`` when the text is not valid JSON.
    public init(_ text: String) throws(JsonParsingError) {
        try self.init(parsing: text)
    }

    /// Parses UTF-8 bytes, answering nil when there are none or they are not valid JSON, as swift-request's
    /// `Json(data)` did; `try Json(parsing: data)` says what is wrong instead.
    ///
    /// ```swift
    /// let json = Json("{\"firstName\":\"Carson\"}".data(using: .utf8))
    /// json?.firstName.string  // "Carson"
    /// ```
    ///
    /// - Parameter data: The UTF-8 bytes of the document, or nil.
    public init?(_ data: Data?) {
        guard let data, let parsed = try? Json(parsing: data) else { return nil }
        self = parsed
    }

    /// Parses a JSON document from any sequence of UTF-8 bytes, such as `[UInt8]` or `ArraySlice<UInt8>`;
    /// contiguous storage is read in place.
    ///
    /// ```swift
    /// let json = try Json(parsing: [UInt8]("[1, 2]".utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 bytes of the document.
    ///   - options: Limits for parsing.
    /// - Throws: ``JsonParsingError`` when the bytes are not valid JSON.
    public init<Bytes: Sequence<UInt8>>(
        parsing bytes: Bytes, options: ParsingOptions = ParsingOptions()
    )
        throws(JsonParsingError)
    {
        let parse = { (buffer: UnsafeBufferPointer<UInt8>) in
            Result { () throws(JsonParsingError) in
                try JsonParser.parse(UnsafeRawBufferPointer(buffer), options: options)
            }
        }
        let result = bytes.withContiguousStorageIfAvailable(parse) ?? Array(bytes).withUnsafeBufferPointer(parse)
        self = try result.get()
    }
}
