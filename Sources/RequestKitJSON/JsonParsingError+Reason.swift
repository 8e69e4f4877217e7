extension JsonParsingError {
    /// Why the bytes were rejected: an open set of reasons, compared by value.
    ///
    /// ```swift
    /// if error.reason == .nestingTooDeep { … }
    /// ```
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        private let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// A byte that cannot start or continue the value at that point (including trailing garbage).
        ///
        /// ```swift
        /// _ = try? Json(parsing: "[1 2]")  // Expected ',' or ']' after an array element but found '2'
        /// ```
        public static let unexpectedCharacter = Reason("unexpected character")
        /// The input ended inside a value.
        ///
        /// ```swift
        /// _ = try? Json(parsing: "[1,")  // Expected a value but found the end of the input
        /// ```
        public static let unexpectedEnd = Reason("unexpected end of input")
        /// A number that breaks JSON's grammar, such as `01`, `1.` or `-`.
        ///
        /// ```swift
        /// _ = try? Json(parsing: "[01]")  // invalid number
        /// ```
        public static let invalidNumber = Reason("invalid number")
        /// A backslash escape that JSON does not define, or a malformed `\u` escape.
        ///
        /// ```swift
        /// _ = try? Json(parsing: #""\x""#)  // invalid escape
        /// ```
        public static let invalidEscape = Reason("invalid escape")
        /// A `\u` escape of a high surrogate without its low surrogate, or a low surrogate alone.
        ///
        /// ```swift
        /// _ = try? Json(parsing: #""\uD800""#)  // lone surrogate
        /// ```
        public static let loneSurrogate = Reason("lone surrogate")
        /// A raw control character (below U+0020) inside a string.
        ///
        /// ```swift
        /// _ = try? Json(parsing: "\"a\tb\"")  // a raw tab inside a string
        /// ```
        public static let controlCharacterInString = Reason("control character in string")
        /// Bytes that are not well-formed UTF-8.
        ///
        /// ```swift
        /// _ = try? Json(parsing: [0x22, 0xC0, 0xAF, 0x22])  // an overlong encoding
        /// ```
        public static let invalidUTF8 = Reason("invalid UTF-8")
        /// Arrays and objects nested deeper than `Json.ParsingOptions.maximumDepth`.
        ///
        /// ```swift
        /// _ = try? Json(parsing: String(repeating: "[", count: 1000))  // nesting too deep
        /// ```
        public static let nestingTooDeep = Reason("nesting too deep")

        /// The reason in words.
        ///
        /// ```swift
        /// JsonParsingError.Reason.invalidNumber.description  // "invalid number"
        /// ```
        public var description: String { name }
    }
}
