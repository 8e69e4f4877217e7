extension JsonParser {
    /// A number as read from its text: the significand's leading digits and the power of ten that scales them.
    struct NumberParts {
        /// The first digits of the significand, as many as fit a `UInt64` (at least 19).
        var significand: UInt64 = 0
        /// The power of ten: the written exponent, less the fraction digits kept, plus the integer digits dropped.
        var exponent = 0
        var isNegative = false
        /// No fraction and no exponent.
        var isInteger = true
        /// Nonzero digits beyond the first ones did not fit the significand (dropped zeros keep it exact).
        var hasDroppedDigits = false
        /// The offset of the first byte (`-` or a digit).
        var start = 0
    }

    /// Parses a number; `position` is at its first byte (`-` or a digit).
    mutating func parseNumber() throws(JsonParsingError) -> Json {
        let parts = try scanNumber()
        if parts.isInteger && !parts.hasDroppedDigits && parts.exponent == 0 {
            if parts.isNegative, parts.significand <= UInt64(Int64.max) + 1 {
                return Json(storage: .integer(Int64(bitPattern: 0 &- parts.significand)))
            }
            if !parts.isNegative, parts.significand <= UInt64(Int64.max) {
                return Json(storage: .integer(Int64(parts.significand)))
            }
        }
        if !parts.isInteger, let value = double(parts), value.isFinite,
            value != 0 || (parts.significand == 0 && !parts.hasDroppedDigits)
        {
            return Json(storage: .double(value))
        }
        // Beyond Int64 (an integer), or beyond Double (overflow to infinity, or underflow of a nonzero number).
        return Json(storage: .numberText(text(from: parts.start)))
    }

    /// The number's text, from `start` to the current position.
    func text(from start: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// The `Double` nearest to a number just scanned (`position` is past its last byte): converted without
    /// `strtod` when at most the significand's first digits matter, from the text otherwise. Nil only when the
    /// text does not convert, which valid JSON always does.
    func double(_ parts: NumberParts) -> Double? {
        if !parts.hasDroppedDigits {
            if let value = DecimalToDouble.double(
                significand: parts.significand, exponent: parts.exponent, isNegative: parts.isNegative)
            {
                return value
            }
        } else if let lower = DecimalToDouble.binaryBits(significand: parts.significand, exponent: parts.exponent),
            let upper = DecimalToDouble.binaryBits(significand: parts.significand + 1, exponent: parts.exponent),
            lower == upper
        {
            // The dropped digits lie between the two bounds, which round alike.
            return Double(bitPattern: lower | (parts.isNegative ? 1 << 63 : 0))
        }
        return Double(text(from: parts.start))
    }

    /// Reads a number's grammar and digits; `position` is at its first byte and ends just past its last one.
    mutating func scanNumber() throws(JsonParsingError) -> NumberParts {
        var parts = NumberParts(start: position)
        parts.isNegative = bytes[position] == UInt8(ascii: "-")
        if parts.isNegative {
            position += 1
        }
        guard position < bytes.count else {
            throw error(.unexpectedEnd, expected: "a digit")
        }
        let first = bytes[position]
        if first == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
                throw error(.invalidNumber, expected: "'.', 'e' or the end of the number after a leading zero")
            }
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) {
            while position < bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if digit > 9 { break }
                if parts.significand <= Self.accumulationLimit {
                    parts.significand = parts.significand &* 10 &+ UInt64(digit)
                } else {
                    // A dropped zero changes nothing once the exponent counts it.
                    parts.hasDroppedDigits = parts.hasDroppedDigits || digit != 0
                    parts.exponent += 1
                }
                position += 1
            }
        } else {
            throw error(.invalidNumber, expected: "a digit after '-'")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            parts.isInteger = false
            position += 1
            let fractionStart = position
            while position < bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if digit > 9 { break }
                if parts.significand <= Self.accumulationLimit {
                    parts.significand = parts.significand &* 10 &+ UInt64(digit)
                    parts.exponent -= 1
                } else {
                    parts.hasDroppedDigits = parts.hasDroppedDigits || digit != 0
                }
                position += 1
            }
            guard position > fractionStart else {
                throw error(.invalidNumber, expected: "a digit after the decimal point")
            }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            parts.isInteger = false
            position += 1
            parts.exponent += try parseExponent()
        }
        return parts
    }

    /// The largest significand that can take one more digit without overflowing a `UInt64`.
    private static var accumulationLimit: UInt64 { (UInt64.max - 9) / 10 }

    /// Parses the exponent after `e` or `E`: an optional sign and digits, clamped far beyond any finite double.
    private mutating func parseExponent() throws(JsonParsingError) -> Int {
        var isNegative = false
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            isNegative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        let digitsStart = position
        var value = 0
        while position < bytes.count {
            let digit = bytes[position] &- UInt8(ascii: "0")
            if digit > 9 { break }
            if value < 1_000_000 {
                value = value * 10 + Int(digit)
            }
            position += 1
        }
        guard position > digitsStart else {
            throw error(.invalidNumber, expected: "a digit in the exponent")
        }
        return isNegative ? -value : value
    }
}
