extension JsonParser {
    /// Parses a string; `position` is at the opening quote and ends just past the closing one.
    mutating func parseString() throws(JsonParsingError) -> String {
        let start = position + 1
        if let decoded = try scanString() {
            return decoded
        }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position - 1]), as: UTF8.self)
    }

    /// Parses an object key as `parseString()` does; a key without escapes comes from the key cache.
    mutating func parseKey() throws(JsonParsingError) -> String {
        let start = position + 1
        if let decoded = try scanString() {
            return decoded
        }
        return keyCache.key(for: UnsafeRawBufferPointer(rebasing: bytes[start..<position - 1]))
    }

    /// Validates a string and moves just past its closing quote; `position` is at the opening quote. Returns
    /// the decoded string when it has escapes, nil when its content is the bytes between the quotes.
    @inline(__always)
    mutating func scanString() throws(JsonParsingError) -> String? {
        try scanString(decodingEscapes: true).decoded
    }

    /// Validates a string and moves just past its closing quote, as `scanString()` does, without decoding its
    /// escapes into a `String`; true when it has escapes.
    mutating func skipString() throws(JsonParsingError) -> Bool {
        try scanString(decodingEscapes: false).hasEscapes
    }

    @inline(__always)
    private mutating func scanString(
        decodingEscapes: Bool
    ) throws(JsonParsingError) -> (hasEscapes: Bool, decoded: String?) {
        position += 1
        let start = position
        while true {
            while position + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self)
                if Self.needsAttention(word) { break }
                position += 8
            }
            guard position < bytes.count else {
                throw error(.unexpectedEnd, expected: "'\"' to close the string")
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (false, nil)
            } else if byte == UInt8(ascii: "\\") {
                return (true, try parseEscapedString(from: start, decoding: decodingEscapes))
            } else if byte < 0x20 {
                throw controlCharacterError()
            } else if byte >= 0x80 {
                try skipMultiByteScalar()
            } else {
                position += 1
            }
        }
    }

    /// Whether any of the eight bytes of `word` is a quote, a backslash, a control character or not ASCII.
    /// False positives only cost a trip through the byte-by-byte loop; there are no false negatives.
    @inline(__always)
    private static func needsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let hasQuote = (quotes &- ones) & ~quotes
        let hasBackslash = (backslashes &- ones) & ~backslashes
        let hasControl = (word &- ones &* 0x20) & ~word
        return (hasQuote | hasBackslash | hasControl | word) & highBits != 0
    }

    /// Continues a string from its first backslash, decoding into `scratch` when `decoding` (and returning the
    /// string), only validating otherwise (and returning nil).
    private mutating func parseEscapedString(from start: Int, decoding: Bool) throws(JsonParsingError) -> String? {
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
                return decoding ? String(decoding: scratch, as: UTF8.self) : nil
            } else if byte == UInt8(ascii: "\\") {
                try appendEscape()
            } else if byte < 0x20 {
                throw controlCharacterError()
            } else if byte >= 0x80 {
                let scalarStart = position
                try skipMultiByteScalar()
                if decoding {
                    scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[scalarStart..<position]))
                }
            } else {
                let runStart = position
                position += 1
                while position < bytes.count {
                    let next = bytes[position]
                    guard next >= 0x20, next < 0x80, next != UInt8(ascii: "\""), next != UInt8(ascii: "\\") else {
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

    private func controlCharacterError() -> JsonParsingError {
        error(
            .controlCharacterInString,
            message:
                "Expected a character or an escape but found the control character \(foundDescription(at: position))"
                + " inside a string; control characters must be escaped",
            at: position)
    }

    /// Decodes the escape at `position` (a backslash) into `scratch`.
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

    /// Checks the well-formed UTF-8 sequence starting at `position` (a byte of 0x80 or more) and moves past it,
    /// following the table of well-formed byte sequences of the Unicode Standard (3.9, table 3-7).
    private mutating func skipMultiByteScalar() throws(JsonParsingError) {
        let lead = bytes[position]
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
            throw invalidUTF8Error(at: position, lead: lead)
        }
        for offset in 1..<length {
            let index = position + offset
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
        position += length
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
