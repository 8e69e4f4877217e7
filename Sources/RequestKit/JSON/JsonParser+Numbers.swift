extension JsonParser {
    /// Exact powers of ten: every one up to 10²² is a `Double` without rounding.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses a number; `position` is at its first byte (`-` or a digit).
    mutating func parseNumber() throws(JsonParsingError) -> Json {
        let start = position
        let isNegative = bytes[position] == UInt8(ascii: "-")
        if isNegative {
            position += 1
        }
        guard position < bytes.count else {
            throw error(.unexpectedEnd, expected: "a digit")
        }
        // The significand's leading digits (at most 19), how many digits did not fit, and the power of ten.
        var significand: UInt64 = 0
        var hasDroppedDigits = false
        var exponent = 0
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
                if significand <= Self.accumulationLimit {
                    significand = significand &* 10 &+ UInt64(digit)
                } else {
                    hasDroppedDigits = true
                    exponent += 1
                }
                position += 1
            }
        } else {
            throw error(.invalidNumber, expected: "a digit after '-'")
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            let fractionStart = position
            while position < bytes.count {
                let digit = bytes[position] &- UInt8(ascii: "0")
                if digit > 9 { break }
                if significand <= Self.accumulationLimit {
                    significand = significand &* 10 &+ UInt64(digit)
                    exponent -= 1
                } else {
                    hasDroppedDigits = true
                }
                position += 1
            }
            guard position > fractionStart else {
                throw error(.invalidNumber, expected: "a digit after the decimal point")
            }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            exponent += try parseExponent()
        }
        if isInteger && !hasDroppedDigits {
            if isNegative, significand <= UInt64(Int64.max) + 1 {
                return Json(storage: .integer(Int64(bitPattern: 0 &- significand)))
            }
            if !isNegative, significand <= UInt64(Int64.max) {
                return Json(storage: .integer(Int64(significand)))
            }
        }
        if !isInteger, !hasDroppedDigits, significand <= 1 << 53, (-22...22).contains(exponent) {
            var value = Double(significand)
            if exponent < 0 {
                value /= Self.exactPowersOfTen[-exponent]
            } else {
                value *= Self.exactPowersOfTen[exponent]
            }
            return Json(storage: .double(isNegative ? -value : value))
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if !isInteger, let value = Double(text), value.isFinite, value != 0 || (significand == 0 && !hasDroppedDigits) {
            return Json(storage: .double(value))
        }
        // Beyond Int64 (an integer), or beyond Double (overflow to infinity, or underflow of a nonzero number).
        return Json(storage: .numberText(text))
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
