/// The error thrown when bytes are not a valid JSON document: what was expected, what was found, and where.
///
/// ```swift
/// do {
///     _ = try Json(parsing: "[1, 2,]")
/// } catch {
///     print(error)  // Expected a value but found ']' at line 1, column 7 (byte offset 6)
///     error.line    // 1
///     error.column  // 7
///     error.reason  // .unexpectedCharacter
/// }
/// ```
public struct JsonParsingError: Error, Sendable, Hashable, CustomStringConvertible {
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
        public static let unexpectedCharacter = Reason("unexpected character")
        /// The input ended inside a value.
        public static let unexpectedEnd = Reason("unexpected end of input")
        /// A number that breaks JSON's grammar, such as `01`, `1.` or `-`.
        public static let invalidNumber = Reason("invalid number")
        /// A backslash escape that JSON does not define, or a malformed `\u` escape.
        public static let invalidEscape = Reason("invalid escape")
        /// A `\u` escape of a high surrogate without its low surrogate, or a low surrogate alone.
        public static let loneSurrogate = Reason("lone surrogate")
        /// A raw control character (below U+0020) inside a string.
        public static let controlCharacterInString = Reason("control character in string")
        /// Bytes that are not well-formed UTF-8.
        public static let invalidUTF8 = Reason("invalid UTF-8")
        /// Arrays and objects nested deeper than `Json.ParsingOptions.maximumDepth`.
        public static let nestingTooDeep = Reason("nesting too deep")

        /// The reason in words.
        ///
        /// ```swift
        /// JsonParsingError.Reason.invalidNumber.description  // "invalid number"
        /// ```
        public var description: String { name }
    }

    /// The kind of problem.
    public let reason: Reason
    /// What was expected and what was found, in words.
    public let message: String
    /// The line of the problem, counting from 1.
    public let line: Int
    /// The column of the problem on its line, counting Unicode scalars from 1.
    public let column: Int
    /// The offset of the problem in the input, in bytes from 0 (a byte order mark counts).
    public let offset: Int

    /// Creates an error; parsers compute the line and column from the input.
    ///
    /// ```swift
    /// let error = JsonParsingError(reason: .unexpectedEnd, message: "Expected a value", line: 1, column: 1, offset: 0)
    /// ```
    public init(reason: Reason, message: String, line: Int, column: Int, offset: Int) {
        self.reason = reason
        self.message = message
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// The message with its position.
    public var description: String {
        "\(message) at line \(line), column \(column) (byte offset \(offset))"
    }
}
