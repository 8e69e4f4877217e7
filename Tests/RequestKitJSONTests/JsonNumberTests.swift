import Foundation
import RequestKitJSON
import RequestKitTestSupport
import Testing

@Suite("JSON numbers")
struct JsonNumberTests {
    @Test(
        "Integers are exact across the whole Int64 range and survive a round trip",
        arguments: [
            "0", "-0", "1", "-1", "9007199254740993", "-9007199254740993", "9223372036854775807",
            "-9223372036854775808",
        ])
    func keepsIntegersExact(text: String) throws {
        let json = try Json(parsing: text)
        #expect(json.int64 == Int64(text))
        #expect(json.serializedString() == (text == "-0" ? "0" : text))
    }

    @Test("Int64 extremes read back through every integer accessor")
    func readsInt64Extremes() throws {
        let json = try Json(parsing: "[9223372036854775807, -9223372036854775808]")
        #expect(json[0].int64 == Int64.max)
        #expect(json[1].int64 == Int64.min)
        #expect(json[0].int == Int.max)
        #expect(json[1].uint64 == nil)
        #expect(json.serializedString() == "[9223372036854775807,-9223372036854775808]")
    }

    @Test(
        "Numbers beyond Int64 and Double keep their text and serialize back verbatim",
        arguments: [
            "9223372036854775808", "-9223372036854775809", "18446744073709551616", "123456789012345678901234567890",
            "1e400", "-1.5E+999", "1e-400", "0.0000000000000000000000000000000000000000000000000000000000000001e-400",
        ])
    func keepsBigNumbersVerbatim(text: String) throws {
        let json = try Json(parsing: "[\(text)]")
        #expect(json.serializedString() == "[\(text)]")
        #expect(json[0].int64 == nil)
    }

    @Test("A number between Int64.max and UInt64.max reads as a UInt64")
    func readsUInt64() throws {
        #expect(try Json(parsing: "18446744073709551615").uint64 == UInt64.max)
        #expect(try Json(parsing: "18446744073709551615").int64 == nil)
        #expect(Json(UInt64.max).serializedString() == "18446744073709551615")
    }

    @Test(
        "Decimals parse to the nearest Double and serialize in their shortest round-trip form",
        arguments: [
            ("1.5", 1.5, "1.5"), ("-0.0", -0.0, "-0.0"), ("0.1", 0.1, "0.1"), ("1e2", 100, "100.0"),
            ("1E-7", 1e-7, "1e-07"), ("2.5e+20", 2.5e20, "2.5e+20"),
            (
                "-65.613616999999977", -65.613616999999977,
                "-65.61361699999998"
            ), ("1.7976931348623157e308", 1.7976931348623157e308, "1.7976931348623157e+308"),
            ("5e-324", .leastNonzeroMagnitude, "5e-324"),
            ("123456789012345678901234.5", 1.2345678901234569e23, "1.2345678901234569e+23"),
        ] as [(String, Double, String)])
    func parsesDoubles(text: String, value: Double, serialized: String) throws {
        let json = try Json(parsing: text)
        #expect(json.double == value)
        #expect(json.double?.sign == value.sign)
        #expect(json.serializedString() == serialized)
        #expect(try Json(parsing: serialized) == json)
    }

    @Test("Accessors are strict: .int of 1.5 is nil, .bool of 1 is nil, .double of an integer is allowed")
    func readsNumbersStrictly() throws {
        let json = try Json(parsing: "[1.5, 1, 2.0, true, \"3\"]")
        #expect(json[0].int == nil)
        #expect(json[0].double == 1.5)
        #expect(json[1].bool == nil)
        #expect(json[1].double == 1.0)
        #expect(json[2].int == 2)
        #expect(json[3].int == nil)
        #expect(json[4].int == nil)
        #expect(json[4].double == nil)
    }

    @Test("A number beyond Double's range answers nil to .double")
    func readsHugeNumbersAsNil() throws {
        #expect(try Json(parsing: "1e400").double == nil)
        #expect(try Json(parsing: "18446744073709551616").double == 18446744073709551616.0)
    }

    @Test("Doubles that are not finite become null")
    func writesNonFiniteAsNull() {
        #expect(Json(Double.infinity).isNull)
        #expect(Json(Double.nan).serializedString() == "null")
    }

    @Test("Equal numbers are equal whatever their spelling, and hash alike")
    func comparesNumbersByValue() throws {
        let integer = try Json(parsing: "100")
        let decimal = try Json(parsing: "1e2")
        #expect(integer == decimal)
        #expect(integer.hashValue == decimal.hashValue)
        #expect(try Json(parsing: "0.5") != Json(parsing: "0"))
        #expect(Set<Json>([1, 1.0, Json(string: "1")]).count == 2)
    }

    @Test("Numbers read the same wherever their digits fall against eight-byte words, and whatever byte ends them")
    func readsDigitRunsAtAnyAlignment() throws {
        var generator = SplitMix64(state: 0xD161_7500)
        let endings = [",0]", "]", " ]", "\n]", "\t]", "}"]
        for round in 0..<6_000 {
            var text = Int.random(in: 0...3, using: &generator) == 0 ? "-" : ""
            let integerDigits = Int.random(in: 1...24, using: &generator)
            text.append(String(Int.random(in: 1...9, using: &generator)))
            for _ in 1..<integerDigits {
                text.append(String(Int.random(in: 0...9, using: &generator)))
            }
            let fractionDigits = Int.random(in: 0...24, using: &generator)
            if fractionDigits > 0 {
                text.append(".")
                for _ in 0..<fractionDigits {
                    text.append(String(Int.random(in: 0...9, using: &generator)))
                }
            }
            if round.isMultiple(of: 3) {
                text.append("e\(Int.random(in: -30...30, using: &generator))")
            }
            let padding = String(repeating: " ", count: round % 8)
            let ending = endings[round % endings.count]
            let document = ending == "}" ? "{\"n\":\(padding)\(text)}" : "[\(padding)\(text)\(ending)"
            let parsed = try Json(parsing: document)
            let value = ending == "}" ? parsed.n : parsed[0]
            if fractionDigits == 0 && !round.isMultiple(of: 3) {
                if let integer = Int64(text) {
                    #expect(value.int64 == integer, "\(text)")
                } else {
                    #expect(value.serializedString() == text, "\(text)")
                }
            } else {
                let reference = try #require(Double(text))
                #expect(value.double?.bitPattern == reference.bitPattern, "\(text)")
            }
        }
    }

    @Test("A byte that is not a digit right after digits ends the number there, and an error names it")
    func endsDigitRunsAtTheFirstOtherByte() throws {
        for tail in [":", "/", "a", "\u{7F}", "é", "ÿ"] {
            for count in 1...9 {
                let digits = String(repeating: "7", count: count)
                do {
                    _ = try Json(parsing: "[\(digits)\(tail)1234567]")
                    Issue.record("[\(digits)\(tail)…] parsed")
                } catch {
                    #expect(error.reason == .unexpectedCharacter, "\(digits)\(tail)")
                    #expect(error.offset == 1 + count, "\(digits)\(tail)")
                }
            }
        }
        let fractions = try Json(parsing: "[0.12345678,0.123456789012345678901]")
        #expect(fractions[0].double == 0.12345678)
        #expect(fractions[1].double == 0.123456789012345678901)
    }
}
