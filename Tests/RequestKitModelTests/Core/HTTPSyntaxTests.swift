import RequestKitModel
import Testing

/// The character rules of RFC 9110 that names, methods and header comparisons rely on.
@Suite("HTTP syntax")
struct HTTPSyntaxTests {
    /// `tchar` as RFC 9110, section 5.6.2 lists it.
    private static let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    @Test("A byte is a token byte exactly when RFC 9110 lists it, for all 256 byte values")
    func tokenBytes() {
        for byte in UInt8.min...UInt8.max {
            #expect(HTTPSyntax.isTokenByte(byte) == Self.tchar.contains(byte), "byte \(byte)")
        }
    }

    @Test(
        "Names compare equal ignoring ASCII case only",
        arguments: [
            ("Content-Length", "content-length", true), ("CONTENT-LENGTH", "content-length", true),
            ("Content-Lengt", "content-length", false), ("Content_Length", "content-length", false),
            // 0x40 and 0x60, `@` and a backquote, differ only in the bit that case folding ignores.
            ("@", "`", false), ("[", "{", false), ("é", "É", false),
        ])
    func caseInsensitive(first: String, second: String, equal: Bool) {
        #expect(HTTPSyntax.equalsIgnoringCase(first, second) == equal)
        #expect(HTTPSyntax.equalsIgnoringCase(Array(first.utf8), Array(second.utf8)[...]) == equal)
    }
}
