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
    @inline(__always)
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
    @inline(__always)
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
            accumulateDigitRuns(into: &parts, isFraction: false)
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
            accumulateDigitRuns(into: &parts, isFraction: true)
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

    /// Adds the digits at `position` to `parts` up to eight at a time, as the digit-by-digit loops after it would
    /// (a fraction's digits also lower the exponent), while the significand is small enough to take eight more
    /// digits without reaching `accumulationLimit` (below 10¹¹, so at most 10¹⁸ before the last digit) and eight
    /// bytes remain in the input. Stops at the first byte that is not a digit, or where the loops take over.
    @inline(__always)
    private mutating func accumulateDigitRuns(into parts: inout NumberParts, isFraction: Bool) {
        while parts.significand < 100_000_000_000, position + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let count = Self.leadingDigitCount(word)
            if count == 0 { return }
            // The digits move to the high bytes (the low ones become leading zeros), then one multiplication
            // per step pairs them up: 8 digits to 4 pairs, to 2 numbers below 10,000, to one below 10⁸.
            var digits = (word &- 0x3030_3030_3030_3030) &<< UInt64((8 &- count) &* 8)
            digits = (digits &* 10 &+ (digits &>> 8)) & 0x00FF_00FF_00FF_00FF
            digits = (digits &* 100 &+ (digits &>> 16)) & 0x0000_FFFF_0000_FFFF
            digits = (digits &* 10_000 &+ (digits &>> 32)) & 0xFFFF_FFFF
            parts.significand = parts.significand &* Self.powerOfTen(count) &+ digits
            if isFraction {
                parts.exponent -= count
            }
            position += count
            if count < 8 { return }
        }
    }

    /// How many of the eight bytes of `word`, in memory order from the lowest, are ASCII digits before the first
    /// byte that is not one.
    @inline(__always)
    static func leadingDigitCount(_ word: UInt64) -> Int {
        // A byte is a digit when its high nibble is 3 and adding 6 leaves it at 3. A carry out of a byte that is
        // not a digit can only disturb bytes after it, so the lowest byte marked here is exact.
        let highNibbles = (word & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030
        let afterSix = ((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030
        let notDigits = highNibbles | afterSix
        let marks = ((notDigits & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F | notDigits) & 0x8080_8080_8080_8080
        return marks.trailingZeroBitCount &>> 3
    }

    /// 10 to the power `exponent`, from 1 through 8 (a table the compiler builds from the switch).
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 1: 10
        case 2: 100
        case 3: 1_000
        case 4: 10_000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }

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
