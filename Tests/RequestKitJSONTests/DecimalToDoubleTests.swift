import Foundation
import RequestKitJSON
import RequestKitTestSupport
import Testing

/// Parses `text` as a JSON number and compares the bits of the result with the standard library's conversion
/// (`strtod`), which rounds correctly.
private func expectSameAsStrtod(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let reference = try #require(Double(text), sourceLocation: sourceLocation)
    let parsed = try Json(parsing: text)
    guard reference.isFinite, reference != 0 || !text.contains(where: { ("1"..."9").contains($0) }) else {
        // Overflow and underflow keep the text instead of becoming a double.
        #expect(parsed.serializedString() == text, sourceLocation: sourceLocation)
        return
    }
    let value = try #require(parsed.double, "\(text)", sourceLocation: sourceLocation)
    #expect(
        value.bitPattern == reference.bitPattern, "\(text): \(value) but strtod says \(reference)",
        sourceLocation: sourceLocation)
}

@Suite("Decimal to double conversion")
struct DecimalToDoubleTests {
    @Test(
        "Edge cases round exactly as strtod does",
        arguments: [
            // Halfway between two doubles: ties go to the even significand.
            "9007199254740993", "9007199254740993.0", "9007199254740995.0", "9007199254740993e0",
            "18014398509481989e0", "1.00000000000000011102230246251565404236316680908203125",
            "2.2250738585072011e-308", "2.2250738585072012e-308", "2.2250738585072014e-308",
            // Subnormals, the smallest one, and below it.
            "4.9406564584124654e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
            "1e-320", "3e-310", "2.225073858507201e-308",
            // The largest double, and just past it.
            "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "1e309",
            "1e-342", "1e-343", "1e-400", "9.9999999999999999999e307",
            // Nineteen and twenty significant digits, and far more.
            "1234567890123456789e-10", "12345678901234567890e-10", "0.1234567890123456789012345678901234567890",
            "7.2057594037927933e16", "123456789012345678901234567890e-20",
            // canada.json-like coordinates.
            "-65.613616999999977", "43.420273000000009", "-0.000000000000000000000000000000000000000001",
            "0.1", "0.2", "0.3", "1e23", "8.41e21", "4.35e-13", "3.0e-5",
        ])
    func matchesStrtodOnEdgeCases(text: String) throws {
        try expectSameAsStrtod(text)
    }

    @Test("Random decimals of up to 19 digits with exponents across the whole range round as strtod does")
    func matchesStrtodOnRandomDecimals() async throws {
        var generator = SplitMix64(state: 0x5EED)
        for round in 0..<20_000 {
            // A pause now and then lets the tests running alongside go on.
            if round.isMultiple(of: 1_000) { await Task.yield() }
            let digitCount = Int.random(in: 1...19, using: &generator)
            var digits = String(Int.random(in: 1...9, using: &generator))
            for _ in 1..<digitCount {
                digits.append(String(Int.random(in: 0...9, using: &generator)))
            }
            let exponent = Int.random(in: -345...310, using: &generator)
            try expectSameAsStrtod("\(digits)e\(exponent)")
        }
    }

    @Test("Every double printed with 17 significant digits, normal or subnormal, reads back as strtod reads it")
    func matchesStrtodOnRandomDoubles() async throws {
        var generator = SplitMix64(state: 0xD0B1E)
        for round in 0..<20_000 {
            // A pause now and then lets the tests running alongside go on.
            if round.isMultiple(of: 1_000) { await Task.yield() }
            // Half the draws are subnormal or tiny, where the rounding is hardest.
            let bits = generator.next() & (round.isMultiple(of: 2) ? 0x7FFF_FFFF_FFFF_FFFF : 0x001F_FFFF_FFFF_FFFF)
            let value = Double(bitPattern: bits)
            guard value.isFinite, value != 0 else { continue }
            try expectSameAsStrtod(String(format: "%.16e", value))
            try expectSameAsStrtod(value.description)
        }
    }

    @Test("Numbers exactly halfway between two doubles, written with at most 19 digits, round to even")
    func roundsHalfwayCasesToEven() throws {
        var generator = SplitMix64(state: 0x4A1F)
        for _ in 0..<5_000 {
            // An odd 54-bit significand is halfway between two 53-bit ones.
            let significand = (UInt64(1) << 53) | (generator.next() & ((1 << 53) - 1)) | 1
            let shift = Int.random(in: 0...9, using: &generator)
            try expectSameAsStrtod("\(significand << shift).0")
        }
    }
}
