import RequestKitModel

/// The directives of a message's `Cache-Control` fields (RFC 9111 §5.2), read leniently and never failing.
///
/// Directive names are case-insensitive; a value may be a token or a quoted string. When a directive appears more
/// than once, the first occurrence counts (RFC 9111 §4.2.1). Text that is not a directive (stray commas, a name
/// with spaces, an unterminated quote) is skipped up to the next comma, so what can be read is still read.
/// A number that is not a valid delta-seconds reads as ``Seconds/invalid``, which the freshness rules treat
/// conservatively (a `max-age` that cannot be read makes the response stale).
///
/// ```swift
/// let control = CacheControl(["max-age=60, must-revalidate"])
/// #expect(control.seconds("max-age") == .valid(60) && control.contains("must-revalidate"))
/// ```
struct CacheControl: Sendable, Hashable {
    /// One directive: its name in lower case, and its value without quotes (nil when it has none).
    struct Directive: Sendable, Hashable {
        let name: String
        let value: String?
    }

    /// A delta-seconds value as read.
    enum Seconds: Sendable, Hashable {
        case absent
        /// The directive is there without a value (`max-stale`).
        case noValue
        /// Digits, capped at 2^31 (RFC 9111 §1.2.2).
        case valid(Int)
        /// Anything else: a sign, a fraction, letters, an empty value.
        case invalid
    }

    /// The largest delta-seconds a cache passes on: 2^31.
    static let maximumSeconds = 2_147_483_648

    /// The directives in order, duplicates kept.
    let directives: [Directive]

    /// Parses the values of every `Cache-Control` field of a message, in order.
    ///
    /// ```swift
    /// let control = CacheControl(response.headers.values(for: "Cache-Control"))
    /// ```
    init(_ fieldValues: [String]) {
        var directives: [Directive] = []
        for value in fieldValues { Self.parse(Array(value.utf8), into: &directives) }
        self.directives = directives
    }

    /// The directives of `headers`' `Cache-Control` fields.
    init(_ headers: HTTPHeaders) { self.init(headers.values(for: "Cache-Control")) }

    /// Whether the directive `name` (lower case) is present.
    func contains(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// The first occurrence of `name` (lower case).
    func directive(_ name: String) -> Directive? { directives.first { $0.name == name } }

    /// The first occurrence of `name` (lower case) read as delta-seconds.
    func seconds(_ name: String) -> Seconds {
        guard let directive = directive(name) else { return .absent }
        guard let value = directive.value else { return .noValue }
        return Self.deltaSeconds(value)
    }

    /// `text` as delta-seconds: one or more digits, capped at 2^31.
    static func deltaSeconds(_ text: String) -> Seconds {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .invalid
        }
        var result = 0
        for byte in text.utf8 {
            result = result * 10 + Int(byte - UInt8(ascii: "0"))
            if result >= maximumSeconds { return .valid(maximumSeconds) }
        }
        return .valid(result)
    }

    private static func parse(_ bytes: [UInt8], into directives: inout [Directive]) {
        var index = 0
        let comma = UInt8(ascii: ","), quote = UInt8(ascii: "\""), equals = UInt8(ascii: "=")
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func skipToComma() {
            var inQuote = false
            while index < bytes.count {
                let byte = bytes[index]
                if inQuote, byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == quote { inQuote.toggle() }
                if byte == comma, !inQuote { break }
                index += 1
            }
            index += 1
        }
        while index < bytes.count {
            while index < bytes.count, isSpace(bytes[index]) || bytes[index] == comma { index += 1 }
            let nameStart = index
            while index < bytes.count, HTTPSyntax.isTokenByte(bytes[index]) { index += 1 }
            guard index > nameStart else {
                skipToComma()
                continue
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            if index >= bytes.count || bytes[index] == comma {
                directives.append(Directive(name: name, value: nil))
                index += 1
                continue
            }
            guard bytes[index] == equals else {
                skipToComma()
                continue
            }
            index += 1
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            var value: [UInt8] = []
            if index < bytes.count, bytes[index] == quote {
                index += 1
                var isClosed = false
                while index < bytes.count {
                    let byte = bytes[index]
                    if byte == UInt8(ascii: "\\"), index + 1 < bytes.count {
                        value.append(bytes[index + 1])
                        index += 2
                        continue
                    }
                    index += 1
                    if byte == quote {
                        isClosed = true
                        break
                    }
                    value.append(byte)
                }
                guard isClosed else { continue }
            } else {
                while index < bytes.count, HTTPSyntax.isTokenByte(bytes[index]) {
                    value.append(bytes[index])
                    index += 1
                }
            }
            while index < bytes.count, isSpace(bytes[index]) { index += 1 }
            guard index >= bytes.count || bytes[index] == comma else {
                skipToComma()
                continue
            }
            index += 1
            directives.append(Directive(name: name, value: String(decoding: value, as: UTF8.self)))
        }
    }
}
