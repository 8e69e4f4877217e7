/// Character classes from the HTTP grammar (RFC 9110 §5.6).
///
/// ```swift
/// HTTPGrammar.isTokenCharacter(UInt8(ascii: "-"))  // true
/// ```
enum HTTPGrammar {
    /// Whether `byte` may appear in a token (method, header name).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether `byte` is an ASCII digit.
    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Field value bytes as text: UTF-8 when valid, otherwise ISO 8859-1 (one character per byte).
    static func text(from bytes: ArraySlice<UInt8>) -> String {
        if let text = String(validatingUTF8Bytes: bytes) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}
