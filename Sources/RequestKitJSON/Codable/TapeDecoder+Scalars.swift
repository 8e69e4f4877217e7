import Foundation

extension TapeDecoder {
    /// `typeMismatch`, or `valueNotFound` for a null, as `JSONDecoder` reports a value of the wrong kind.
    func mismatch(_ type: Any.Type, at index: Int, path: CodingPathNode, key: CodingPathNode.Component) -> DecodingError
    {
        let kind = tape.nodes[index].kind
        let context = DecodingError.Context(
            codingPath: path.keys(appending: key),
            debugDescription: kind == .null
                ? "Cannot get value of type \(type) -- found null value instead"
                : "Expected to decode \(type) but found \(Self.describe(kind)) instead.")
        return kind == .null ? .valueNotFound(type, context) : .typeMismatch(type, context)
    }

    static func describe(_ kind: JsonTape.Kind) -> String {
        switch kind {
        case .null: "null"
        case .false, .true: "bool"
        case .integer, .decimal: "number"
        case .string, .escapedString: "a string"
        case .array: "an array"
        case .object: "a dictionary"
        }
    }

    /// The error `JSONDecoder` throws for a number its type cannot hold: data corrupted, at the root.
    func unrepresentable(
        _ type: Any.Type, at index: Int, path: CodingPathNode, key: CodingPathNode.Component
    )
        -> DecodingError
    {
        let text = String(decoding: tape.text(of: tape.nodes[index]), as: UTF8.self)
        let where_ = path.keys(appending: key).map(\.stringValue).joined(separator: ".")
        return .dataCorrupted(
            DecodingError.Context(
                codingPath: [],
                debugDescription: "The given data was not valid JSON: the number \(text) at '\(where_)' does not fit "
                    + "in \(type)."))
    }

    /// Why a scalar could not be read; the container that asked turns it into a `DecodingError` with its path,
    /// so reading a value builds no path or key unless it fails.
    enum ScalarFailure: Error {
        /// A value of another kind (`typeMismatch`, or `valueNotFound` for a null).
        case mismatch
        /// A Bool was expected: `JSONDecoder` reports a null there as a type mismatch too.
        case notBool
        /// A number the type cannot hold.
        case unrepresentable
    }

    /// The `DecodingError` for `failure` reading a value of `type` at `index`, the value of `key` in `path`.
    func decodingError(
        _ failure: ScalarFailure, _ type: Any.Type, at index: Int, path: CodingPathNode, key: CodingPathNode.Component
    ) -> DecodingError {
        switch failure {
        case .mismatch:
            return mismatch(type, at: index, path: path, key: key)
        case .notBool:
            return DecodingError.typeMismatch(
                Bool.self,
                DecodingError.Context(
                    codingPath: path.keys(appending: key),
                    debugDescription:
                        "Expected to decode Bool but found \(Self.describe(tape.nodes[index].kind)) instead."))
        case .unrepresentable:
            return unrepresentable(type, at: index, path: path, key: key)
        }
    }

    @inline(__always)
    func boolValue(at index: Int) throws(ScalarFailure) -> Bool {
        switch tape.nodes[index].kind {
        case .true: return true
        case .false: return false
        default: throw .notBool
        }
    }

    @inline(__always)
    func stringValue(at index: Int) throws(ScalarFailure) -> String {
        let node = tape.nodes[index]
        switch node.kind {
        case .string: return String(decoding: tape.text(of: node), as: UTF8.self)
        case .escapedString: return tape.string(at: index)
        default: throw .mismatch
        }
    }

    func bool(at index: Int, path: CodingPathNode, key: CodingPathNode.Component) throws -> Bool {
        do {
            return try boolValue(at: index)
        } catch {
            throw decodingError(error, Bool.self, at: index, path: path, key: key)
        }
    }

    func string(at index: Int, path: CodingPathNode, key: CodingPathNode.Component) throws -> String {
        do {
            return try stringValue(at: index)
        } catch {
            throw decodingError(error, String.self, at: index, path: path, key: key)
        }
    }

    func integer<Integer: FixedWidthInteger>(
        _ type: Integer.Type, at index: Int, path: CodingPathNode, key: CodingPathNode.Component
    ) throws -> Integer {
        do {
            return try integerValue(type, at: index)
        } catch {
            throw decodingError(error, type, at: index, path: path, key: key)
        }
    }

    func floatingPoint<Float: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: Float.Type, at index: Int, path: CodingPathNode, key: CodingPathNode.Component
    ) throws -> Float {
        do {
            return try floatingPointValue(type, at: index)
        } catch {
            throw decodingError(error, type, at: index, path: path, key: key)
        }
    }

    /// Reads an integer: digits directly; a fraction or exponent that still gives a whole number in range, as
    /// `JSONDecoder` accepts it (`1.0`, `1e2`).
    func integerValue<Integer: FixedWidthInteger>(
        _ type: Integer.Type, at index: Int
    ) throws(ScalarFailure) -> Integer {
        let node = tape.nodes[index]
        if node.kind == .integer {
            let text = tape.text(of: node)
            let isNegative = text[0] == UInt8(ascii: "-")
            var offset = isNegative ? 1 : 0
            var magnitude: UInt64 = 0
            var overflows = text.count - offset > 19
            if !overflows {
                while offset < text.count {
                    magnitude = magnitude &* 10 &+ UInt64(text[offset] &- UInt8(ascii: "0"))
                    offset += 1
                }
            } else if text.count - offset == 20 {
                // Twenty digits may still fit a UInt64.
                overflows = false
                while offset < text.count, !overflows {
                    let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, carry) = times10.addingReportingOverflow(UInt64(text[offset] &- UInt8(ascii: "0")))
                    magnitude = sum
                    overflows = overflow || carry
                    offset += 1
                }
            }
            if !overflows {
                if !isNegative, let value = Integer(exactly: magnitude) {
                    return value
                }
                if isNegative, magnitude <= UInt64(Int64.max) + 1,
                    let value = Integer(exactly: Int64(bitPattern: 0 &- magnitude))
                {
                    return value
                }
            }
            throw .unrepresentable
        }
        guard node.kind == .decimal else {
            throw .mismatch
        }
        // As `JSONDecoder`: through the nearest double, which must be a whole number in range; from 2^53 on,
        // where doubles skip integers, through the exact decimal with any fraction truncated.
        var parser = tape.parser(at: node.first)
        if let parts = try? parser.scanNumber(), let double = parser.double(parts) {
            guard let value = Integer(exactly: double) else {
                throw .unrepresentable
            }
            if double.magnitude < 0x1p53 {
                return value
            }
        }
        if let value = Self.integer(Integer.self, fromDecimalText: tape.text(of: node)) {
            return value
        }
        throw .unrepresentable
    }

    /// `JSONDecoder`'s conversion of a decimal to an integer from 2^53 on: the text read as a `Decimal`, which
    /// keeps digits while they fit 128 bits (an integer digit beyond only raises the power of ten, a fraction digit
    /// beyond is dropped) and drops trailing zeros; the digits left must fit a `UInt64`, a negative power of ten
    /// divides them (dropping the fraction), a positive one multiplies them, and the result must fit the type.
    static func integer<Integer: FixedWidthInteger>(
        _ type: Integer.Type, fromDecimalText text: UnsafeRawBufferPointer
    ) -> Integer? {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var exponent = 0
        var index = 0
        let isNegative = !text.isEmpty && text[0] == UInt8(ascii: "-")
        if isNegative {
            index = 1
        }
        var isFraction = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                isFraction = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                break
            } else {
                let digit = UInt64(byte &- UInt8(ascii: "0"))
                let (highTimes10, highOverflow) = high.multipliedReportingOverflow(by: 10)
                let lowTimes10 = low.multipliedFullWidth(by: 10)
                let (sumLow, carry) = lowTimes10.low.addingReportingOverflow(digit)
                let (partialHigh, overflow1) = highTimes10.addingReportingOverflow(lowTimes10.high)
                let (sumHigh, overflow2) = partialHigh.addingReportingOverflow(carry ? 1 : 0)
                if !highOverflow && !overflow1 && !overflow2 {
                    high = sumHigh
                    low = sumLow
                    if isFraction {
                        exponent -= 1
                    }
                } else if !isFraction {
                    exponent += 1
                }
            }
            index += 1
        }
        if index < text.count {
            // The exponent: a sign and digits, clamped far beyond any integer.
            index += 1
            var isNegativeExponent = false
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                isNegativeExponent = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            while index < text.count {
                written = min(written * 10 + Int(text[index] &- UInt8(ascii: "0")), 100_000)
                index += 1
            }
            exponent += isNegativeExponent ? -written : written
        }
        while high != 0 || low != 0 {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: 10)
            let (lowQuotient, remainder) = UInt64(10).dividingFullWidth((highRemainder, low))
            guard remainder == 0 else { break }
            high = highQuotient
            low = lowQuotient
            exponent += 1
        }
        guard high == 0, !isNegative || Integer.isSigned else { return nil }
        var magnitude = low
        for _ in 0..<min(exponent.magnitude, 40) {
            if exponent < 0 {
                magnitude /= 10
            } else {
                let (product, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                guard !overflow else { return nil }
                magnitude = product
            }
        }
        guard let value = Integer(exactly: magnitude) else { return nil }
        return isNegative ? 0 - value : value
    }

    /// Reads a `Double` or `Float`; infinities and NaN only from strings named by the non-conforming float
    /// strategy. A number that overflows, or that underflows to zero without being zero, is rejected.
    func floatingPointValue<Float: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: Float.Type, at index: Int
    ) throws(ScalarFailure) -> Float {
        let node = tape.nodes[index]
        switch node.kind {
        case .integer, .decimal:
            var parser = tape.parser(at: node.first)
            guard let parts = try? parser.scanNumber() else {
                throw .unrepresentable
            }
            let value: Float?
            if Float.self == Double.self {
                value = parser.double(parts).map { Float($0) }
            } else {
                value = Float(String(decoding: tape.text(of: node), as: UTF8.self))
            }
            guard let value, value.isFinite, value != 0 || parts.significand == 0 else {
                throw .unrepresentable
            }
            return value
        case .string:
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) =
                options.nonConformingFloatDecodingStrategy
            {
                let text = tape.text(of: node)
                if text.elementsEqual(positiveInfinity.utf8) { return .infinity }
                if text.elementsEqual(negativeInfinity.utf8) { return -.infinity }
                if text.elementsEqual(nan.utf8) { return .nan }
            }
            throw .mismatch
        default:
            throw .mismatch
        }
    }
}
