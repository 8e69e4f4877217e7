import Foundation

extension JsonParser {
    /// Parses a string; `position` is at the opening quote and ends just past the closing one.
    ///
    /// The scan only looks for the quote, backslashes and control characters; the UTF-8 of the content is
    /// validated once, by the standard library while it creates the string, and only when that fails is the
    /// content checked again here to say which byte is wrong.
    mutating func parseString() throws(JsonParsingError) -> String {
        let start = position + 1
        let scanned = try scanString(decodingEscapes: true, validatingUTF8: false)
        if let decoded = scanned.decoded {
            return try validString(decoded, from: start)
        }
        let content = UnsafeRawBufferPointer(rebasing: bytes[start..<position - 1])
        guard scanned.hasNonASCII else {
            return String(decoding: content, as: UTF8.self)
        }
        return try validString(content, from: start)
    }

    /// Parses an object key as `parseString()` does; a key without escapes comes from the key cache. Also
    /// returns the key's fingerprint (`JsonKeyCache.Summary.fingerprint` of its UTF-8).
    mutating func parseKey() throws(JsonParsingError) -> (key: String, fingerprint: UInt64) {
        let start = position + 1
        let scanned = try scanString(decodingEscapes: true, validatingUTF8: false)
        if let decoded = scanned.decoded {
            let fingerprint = decoded.withUnsafeBytes { JsonKeyCache.Summary(of: $0).fingerprint }
            return (try validString(decoded, from: start), fingerprint)
        }
        let content = UnsafeRawBufferPointer(rebasing: bytes[start..<position - 1])
        let summary = JsonKeyCache.Summary(of: content)
        guard let key = keyCache.key(for: content, summary: summary, isASCII: !scanned.hasNonASCII) else {
            return (try validString(content, from: start), summary.fingerprint)
        }
        return (key, summary.fingerprint)
    }

    /// The string of UTF-8 bytes `utf8` (the content of the string whose first byte is at `start`, or its
    /// decoded escapes); when they are not valid UTF-8, the error names the first wrong byte of the content.
    private mutating func validString(
        _ utf8: UnsafeRawBufferPointer, from start: Int
    ) throws(JsonParsingError) -> String {
        if let string = Self.validString(utf8) {
            return string
        }
        try validateUTF8(from: start, to: position - 1)
        // Not reached: the content is invalid exactly when its decoded form is.
        return String(decoding: utf8, as: UTF8.self)
    }

    private mutating func validString(_ utf8: [UInt8], from start: Int) throws(JsonParsingError) -> String {
        let string = utf8.withUnsafeBytes { Self.validString($0) }
        if let string {
            return string
        }
        try validateUTF8(from: start, to: position - 1)
        return String(decoding: utf8, as: UTF8.self)
    }

    /// The string of `utf8`, or nil when it is not valid UTF-8. The standard library validates while it creates
    /// the string and replaces what is invalid, so the string is valid exactly when it holds the same bytes.
    static func validString(_ utf8: UnsafeRawBufferPointer) -> String? {
        var string = String(decoding: utf8, as: UTF8.self)
        let isSame = string.withUTF8 { created in
            guard created.count == utf8.count else { return false }
            guard let createdBytes = created.baseAddress, let utf8Bytes = utf8.baseAddress else { return true }
            return memcmp(createdBytes, utf8Bytes, utf8.count) == 0
        }
        return isSame ? string : nil
    }

    /// Validates a string and moves just past its closing quote, as `parseString()` does, without making a
    /// `String`; true when it has escapes.
    mutating func skipString() throws(JsonParsingError) -> Bool {
        try scanString(decodingEscapes: false, validatingUTF8: true).hasEscapes
    }

    /// Scans a string and moves just past its closing quote; `position` is at the opening quote. Returns the
    /// decoded content when it has escapes and `decodingEscapes` (nil when its content is the bytes between the
    /// quotes), and whether it has bytes beyond ASCII, whose UTF-8 is validated only when `validatingUTF8`.
    ///
    /// An error inside the string is preceded by any invalid UTF-8 before it, whether validating or not, so
    /// that the first wrong byte is the one reported.
    @inline(__always)
    private mutating func scanString(
        decodingEscapes: Bool, validatingUTF8: Bool
    ) throws(JsonParsingError) -> (hasEscapes: Bool, decoded: [UInt8]?, hasNonASCII: Bool) {
        position += 1
        let start = position
        var highBits: UInt64 = 0
        do throws(JsonParsingError) {
            while true {
                if position + 8 <= bytes.count {
                    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                    let ends = Self.runEnds(word)
                    if ends == 0 {
                        highBits |= word
                        position += 8
                        continue
                    }
                    // The lowest marked byte is the first quote, backslash or control character.
                    let offset = ends.trailingZeroBitCount &>> 3
                    highBits |= word & ((1 &<< UInt64(offset &* 8)) &- 1)
                    position += offset
                } else {
                    guard position < bytes.count else {
                        throw error(.unexpectedEnd, expected: "'\"' to close the string")
                    }
                    let byte = bytes[position]
                    if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                        highBits |= UInt64(byte)
                        position += 1
                        continue
                    }
                }
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    let hasNonASCII = highBits & 0x8080_8080_8080_8080 != 0
                    if hasNonASCII && validatingUTF8 {
                        try validateUTF8(from: start, to: position)
                    }
                    position += 1
                    return (false, nil, hasNonASCII)
                } else if byte == UInt8(ascii: "\\") {
                    let decoded = try parseEscapedString(from: start, decoding: decodingEscapes)
                    if validatingUTF8 {
                        try validateUTF8(from: start, to: position - 1)
                    }
                    return (true, decoded, true)
                } else {
                    throw controlCharacterError()
                }
            }
        } catch {
            try validateUTF8(from: start, to: min(error.offset, bytes.count))
            throw error
        }
    }

    /// The high bit of each of the eight bytes of `word` (in memory order from the lowest) that is a quote, a
    /// backslash or a control character. Bytes beyond ASCII never match (each test needs the byte's high bit
    /// clear). A borrow may also mark a byte after a matching one, never before: the lowest mark is exact.
    @inline(__always)
    static func runEnds(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl) & highBits
    }

    /// Checks that `bytes[start..<end]` is well-formed UTF-8 and throws the error for its first wrong byte
    /// otherwise. ASCII is skipped eight bytes at a time, and the common two- and three-byte sequences are
    /// checked with two masks; anything else goes through `endOfMultiByteScalar(at:)`'s exact check. A sequence
    /// may not run past `end` (the byte there ends the string and is never a continuation byte).
    func validateUTF8(from start: Int, to end: Int) throws(JsonParsingError) {
        var index = start
        while index < end {
            while index + 8 <= end,
                bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < end else { return }
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
            } else if lead >= 0xE1, lead <= 0xEF, lead != 0xED, index + 2 < end,
                bytes[index + 1] & 0xC0 == 0x80, bytes[index + 2] & 0xC0 == 0x80
            {
                index += 3
            } else if lead >= 0xC2, lead <= 0xDF, index + 1 < end, bytes[index + 1] & 0xC0 == 0x80 {
                index += 2
            } else {
                index = try endOfMultiByteScalar(at: index)
            }
        }
    }

    /// Continues a string from its first backslash, decoding into `scratch` when `decoding` (and returning the
    /// bytes), only checking the escapes otherwise (and returning nil). Bytes beyond ASCII are copied as they
    /// are; the caller validates their UTF-8.
    private mutating func parseEscapedString(from start: Int, decoding: Bool) throws(JsonParsingError) -> [UInt8]? {
        scratch.removeAll(keepingCapacity: true)
        if decoding {
            scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        }
        while true {
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "'\"' to close the string")
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return decoding ? scratch : nil
            } else if byte == UInt8(ascii: "\\") {
                if decoding {
                    try appendEscape()
                } else {
                    try skipEscape()
                }
            } else if byte < 0x20 {
                throw controlCharacterError()
            } else {
                let runStart = position
                position += 1
                while position + 8 <= bytes.count {
                    let ends = Self.runEnds(
                        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)))
                    if ends != 0 {
                        // The lowest marked byte ends the run.
                        position += ends.trailingZeroBitCount &>> 3
                        break
                    }
                    position += 8
                }
                while position < bytes.count {
                    let next = bytes[position]
                    guard next >= 0x20, next != UInt8(ascii: "\""), next != UInt8(ascii: "\\") else {
                        break
                    }
                    position += 1
                }
                if decoding {
                    scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<position]))
                }
            }
        }
    }

    /// Checks the escape at `position` (a backslash) and moves past it, as `appendEscape()` does without
    /// decoding it.
    private mutating func skipEscape() throws(JsonParsingError) {
        guard position + 1 < bytes.count else {
            position += 1
            throw error(.unexpectedEnd, expected: "an escape character after '\\'")
        }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        default:
            // \u escapes (and errors) take the decoding path; its output is dropped with the scratch buffer.
            try appendEscape()
        }
    }

    private func controlCharacterError() -> JsonParsingError {
        error(
            .controlCharacterInString,
            message:
                "Expected a character or an escape but found the control character \(foundDescription(at: position))"
                + " inside a string; control characters must be escaped",
            at: position)
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`.
    @inline(__always)
    private mutating func appendEscape() throws(JsonParsingError) {
        let escapeStart = position
        position += 1
        guard position < bytes.count else {
            throw error(.unexpectedEnd, expected: "an escape character after '\\'")
        }
        let decoded: UInt8
        switch bytes[position] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"):
            position += 1
            try appendUnicodeEscape(startingAt: escapeStart)
            return
        default:
            throw error(.invalidEscape, expected: "one of '\"', '\\', '/', 'b', 'f', 'n', 'r', 't' or 'u' after '\\'")
        }
        scratch.append(decoded)
        position += 1
    }

    /// Decodes `XXXX` (and the low surrogate escape that must follow a high surrogate) into `scratch`.
    private mutating func appendUnicodeEscape(startingAt escapeStart: Int) throws(JsonParsingError) {
        let unit = try readHexQuad()
        var scalar = unit
        if (0xD800...0xDBFF).contains(unit) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else {
                throw error(
                    .loneSurrogate,
                    message: "Expected a low surrogate escape (\\uDC00-\\uDFFF) after the high surrogate but found "
                        + foundDescription(at: position), at: escapeStart)
            }
            position += 2
            let low = try readHexQuad()
            guard (0xDC00...0xDFFF).contains(low) else {
                throw error(
                    .loneSurrogate,
                    message: "Expected a low surrogate (\\uDC00-\\uDFFF) after the high surrogate but found a "
                        + "\\u escape of another code unit", at: escapeStart)
            }
            scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(unit) {
            throw error(
                .loneSurrogate, message: "Expected a Unicode scalar escape but found a lone low surrogate",
                at: escapeStart)
        }
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Reads four hexadecimal digits.
    private mutating func readHexQuad() throws(JsonParsingError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "four hexadecimal digits after '\\u'")
            }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error(.invalidEscape, expected: "four hexadecimal digits after '\\u'")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Checks the well-formed UTF-8 sequence starting at `start` (a byte of 0x80 or more) and returns the offset
    /// past it, following the table of well-formed byte sequences of the Unicode Standard (3.9, table 3-7).
    private func endOfMultiByteScalar(at start: Int) throws(JsonParsingError) -> Int {
        let lead = bytes[start]
        let length: Int
        var secondLowest: UInt8 = 0x80
        var secondHighest: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF:
            length = 2
        case 0xE0:
            length = 3
            secondLowest = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
        case 0xED:
            length = 3
            secondHighest = 0x9F
        case 0xF0:
            length = 4
            secondLowest = 0x90
        case 0xF1...0xF3:
            length = 4
        case 0xF4:
            length = 4
            secondHighest = 0x8F
        default:
            throw invalidUTF8Error(at: start, lead: lead)
        }
        for offset in 1..<length {
            let index = start + offset
            guard index < bytes.count else {
                throw error(
                    .invalidUTF8, message: "Expected the rest of a UTF-8 sequence but found the end of the input",
                    at: index)
            }
            let lowest = offset == 1 ? secondLowest : 0x80
            let highest = offset == 1 ? secondHighest : 0xBF
            guard (lowest...highest).contains(bytes[index]) else {
                throw error(
                    .invalidUTF8,
                    message: "Expected a UTF-8 continuation byte in 0x\(String(lowest, radix: 16, uppercase: true))"
                        + "-0x\(String(highest, radix: 16, uppercase: true)) but found \(foundDescription(at: index))",
                    at: index)
            }
        }
        return start + length
    }

    private func invalidUTF8Error(at offset: Int, lead: UInt8) -> JsonParsingError {
        let why =
            switch lead {
            case 0x80...0xBF: "a continuation byte without a lead byte"
            case 0xC0, 0xC1: "the lead byte of an overlong encoding"
            default: "a byte that never appears in UTF-8"
            }
        return error(
            .invalidUTF8,
            message: "Expected a UTF-8 lead byte but found \(foundDescription(at: offset)), \(why)", at: offset)
    }
}
