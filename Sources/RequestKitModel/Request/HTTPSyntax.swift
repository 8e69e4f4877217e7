/// Character rules from RFC 9110 and RFC 3986, shared by every component that validates or encodes.
package enum HTTPSyntax {
    /// Whether `byte` is a `tchar`: the characters allowed in methods and header names. Inlinable: the response
    /// parser calls it for every byte of every header name.
    @inlinable
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        // One bit per byte value below 128, set for "!#$%&'*+-.^_`|~", digits and letters (RFC 9110, 5.6.2).
        let below64: UInt64 = 0x03FF_6CFA_0000_0000
        let from64: UInt64 = 0x57FF_FFFF_C7FF_FFFE
        if byte < 64 { return below64 >> byte & 1 == 1 }
        return byte < 128 && from64 >> (byte - 64) & 1 == 1
    }

    /// Whether a request may have `scheme`: `http` or `https`, or a Unix domain socket's `http+unix` or
    /// `https+unix` (the socket's path, percent-encoded, as the host), in any case.
    package static func isRequestScheme(_ scheme: String) -> Bool {
        equalsIgnoringCase(scheme, "http") || equalsIgnoringCase(scheme, "https") || isUnixSocketScheme(scheme)
    }

    /// Whether `scheme` is `http+unix` or `https+unix`, in any case.
    package static func isUnixSocketScheme(_ scheme: String) -> Bool {
        equalsIgnoringCase(scheme, "http+unix") || equalsIgnoringCase(scheme, "https+unix")
    }

    /// Whether two strings are equal with ASCII letters compared case-insensitively, as header names and tokens
    /// are compared.
    @inline(__always)
    package static func equalsIgnoringCase(_ first: String, _ second: String) -> Bool {
        // Most names compared differ in length, which a string knows without reading its bytes.
        first.utf8.count == second.utf8.count && equalsIgnoringCase(first.utf8, second.utf8)
    }

    /// Whether two byte sequences are equal with ASCII letters compared case-insensitively. Inlinable, so that each
    /// module's callers get it specialised for their types rather than calling it through witness tables.
    @inlinable
    package static func equalsIgnoringCase<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        // Contiguous bytes (native strings, buffers) are compared in place; others one element at a time.
        let inPlace = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in equalsIgnoringCase(bytes: x, y) }
        }
        if let inPlace, let result = inPlace { return result }
        // By index, not `zip`: where this runs unspecialised, each `zip` looked up its types' metadata at run time,
        // some 1,400 instructions a call.
        var x = a.startIndex
        var y = b.startIndex
        while x != a.endIndex {
            guard equalsIgnoringCase(a[x], b[y]) else { return false }
            a.formIndex(after: &x)
            b.formIndex(after: &y)
        }
        return true
    }

    @usableFromInline
    static func equalsIgnoringCase(bytes a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where !equalsIgnoringCase(a[index], b[index]) { return false }
        return true
    }

    /// Whether two bytes are equal, ASCII letters compared case-insensitively.
    @usableFromInline
    static func equalsIgnoringCase(_ x: UInt8, _ y: UInt8) -> Bool {
        guard x != y else { return true }
        let folded = x | 0x20
        return folded == y | 0x20 && folded >= 0x61 && folded <= 0x7A
    }

    /// Whether `text` is a non-empty token.
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    /// The first byte of a header value that may not be sent: any control character but HTAB, or DEL.
    /// This rejects CR, LF and NUL, which would let a value inject headers.
    package static func invalidValueByte(in value: String) -> UInt8? {
        value.utf8.first { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// Whether `text` is an entity tag (RFC 9110, section 8.8.3) that can be sent back in `If-None-Match` exactly
    /// as received: `"…"` or `W/"…"`, or the bare opaque tag some servers send without quotes (httpbin's `abc`),
    /// with no `"`, control character or space in the tag.
    package static func isEntityTag(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        if bytes.starts(with: "W/".utf8) { bytes = bytes.dropFirst(2) }
        if bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") {
            bytes = bytes.dropFirst().dropLast()
        } else if bytes.isEmpty {
            return false
        }
        return bytes.allSatisfy { $0 == 0x21 || (0x23...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Whether `byte` is unreserved in RFC 3986: `ALPHA / DIGIT / "-" / "." / "_" / "~"`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Percent-encodes every byte of `text` that is not unreserved, so the result is safe as a path segment,
    /// query name or query value: `/`, `?`, `#`, `&`, `=`, `+`, space (`%20`) and non-ASCII are all encoded.
    package static func percentEncoded(_ text: String) -> String {
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encodes `text` as one path segment: as ``percentEncoded(_:)``, and `.` and `..` (which would
    /// mean "this segment" and "the parent segment", RFC 3986 section 3.3) become `%2E` and `%2E%2E`, so a value
    /// stays a segment and cannot climb out of the path it was put in.
    package static func pathSegment(_ text: String) -> String {
        dotSegmentEncoded(percentEncoded(text))
    }

    /// `%2E` for `.` and `%2E%2E` for `..`; any other already-encoded segment as it is.
    package static func dotSegmentEncoded(_ segment: String) -> String {
        switch segment {
        case ".": "%2E"
        case "..": "%2E%2E"
        default: segment
        }
    }

    /// Encodes `text` for `application/x-www-form-urlencoded`: like ``percentEncoded(_:)`` but a space is `+`.
    package static func formEncoded(_ text: String) -> String {
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) || byte == UInt8(ascii: "*") {
                bytes.append(byte)
            } else if byte == UInt8(ascii: " ") {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The value of a `Content-Length` field (RFC 9110, section 8.6): `1*DIGIT`, or a comma-separated list of
    /// equal such values (what a proxy makes of duplicate fields); nil for anything else, such as `1 0`, `+5`,
    /// `5, 6` or an empty value.
    package static func contentLength(_ value: String) -> Int? {
        var length: Int?
        for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            guard let parsed = contentLengthElement(element), length == nil || length == parsed else { return nil }
            length = parsed
        }
        return length
    }

    /// One element of a `Content-Length` list: `1*DIGIT` (at most 18 digits) with optional whitespace around it
    /// and none inside; nil otherwise.
    package static func contentLengthElement(_ text: Substring.UTF8View) -> Int? {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = text.firstIndex(where: { !isWhitespace($0) }),
            let last = text.lastIndex(where: { !isWhitespace($0) })
        else { return nil }
        var value = 0
        var digits = 0
        for byte in text[first...last] {
            guard byte >= 0x30, byte <= 0x39, digits < 18 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return value
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingHTTPWhitespace() -> String {
        let isWhitespace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isWhitespace($0) }),
            let last = lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
