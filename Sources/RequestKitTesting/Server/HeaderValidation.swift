/// Checks that text taken from a request can be sent back as a header without breaking the response.
///
/// ```swift
/// HeaderValidation.isValidValue("a\r\nb")  // false
/// ```
enum HeaderValidation {
    /// Whether `name` is a non-empty token.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(HTTPGrammar.isTokenCharacter)
    }

    /// Whether `value` has no control characters other than tab.
    static func isValidValue(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 32 && $0.value != 127) }
    }
}
