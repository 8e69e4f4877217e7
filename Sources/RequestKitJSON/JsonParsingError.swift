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
    /// The kind of problem.
    ///
    /// ```swift
    /// if error.reason == .unexpectedEnd { askForTheRestOfTheBody() }
    /// ```
    public let reason: Reason
    /// What was expected and what was found, in words.
    ///
    /// ```swift
    /// error.message  // "Expected a value but found ']'"
    /// ```
    public let message: String
    /// The line of the problem, counting from 1.
    ///
    /// ```swift
    /// error.line  // 1
    /// ```
    public let line: Int
    /// The column of the problem on its line, counting Unicode scalars from 1.
    ///
    /// ```swift
    /// error.column  // 7
    /// ```
    public let column: Int
    /// The offset of the problem in the input, in bytes from 0 (a byte order mark counts).
    ///
    /// ```swift
    /// error.offset  // 6
    /// ```
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
    ///
    /// ```swift
    /// print(error)  // Expected a value but found ']' at line 1, column 7 (byte offset 6)
    /// ```
    public var description: String {
        "\(message) at line \(line), column \(column) (byte offset \(offset))"
    }
}
