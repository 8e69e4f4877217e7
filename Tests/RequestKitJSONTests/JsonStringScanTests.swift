import Foundation
import RequestKitJSON
import Testing

/// Parses `bytes` and returns the error, or `nil` when parsing succeeded.
private func parsingError(_ bytes: [UInt8]) -> JsonParsingError? {
    do {
        _ = try Json(parsing: bytes)
        return nil
    } catch {
        return error
    }
}

/// The bytes of a JSON string holding `content` as it is (no escaping).
private func quoted(_ content: [UInt8]) -> [UInt8] {
    [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
}

/// A coding key made from any string, to look members up by name.
private struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Looks up each of `names` in an object and keeps the integers found.
private struct Lookup: Decodable {
    static let names = [
        "", "a", "ab", "abc", "abcd", "abcde", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmno",
        "abcdefghijklmnop", "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyZ",
        "Abcdefghijklmnopqrstuvwxyz", "abcdefghijklMnopqrstuvwxyz", "é", "日本語", "missing", "abcdefgX",
    ]
    var found: [String: Int] = [:]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NameKey.self)
        for name in Self.names {
            found[name] = try container.decodeIfPresent(Int.self, forKey: NameKey(stringValue: name))
        }
    }
}

@Suite("Scanning JSON strings")
struct JsonStringScanTests {
    @Test("Strings of every length up to 40, with and without a character beyond ASCII at every place, parse exactly")
    func everyLengthAndPlace() throws {
        for length in 0...40 {
            let ascii = String(repeating: "a", count: length)
            #expect(try Json(parsing: Array(quoted(Array(ascii.utf8)))).string == ascii)
            for place in 0...length {
                let text = String(repeating: "a", count: place) + "é日" + String(repeating: "b", count: length - place)
                #expect(try Json(parsing: quoted(Array(text.utf8))).string == text)
                let escaped =
                    String(repeating: "a", count: place) + "\\n" + String(repeating: "é", count: length - place)
                #expect(
                    try Json(parsing: quoted(Array(escaped.utf8))).string
                        == String(repeating: "a", count: place) + "\n" + String(repeating: "é", count: length - place))
            }
        }
    }

    @Test("Invalid UTF-8 is reported at its first byte, before a later control character, bad escape or end")
    func invalidUTF8ComesFirst() throws {
        let later: [[UInt8]] = [
            [0x01, UInt8(ascii: "\"")],  // a control character
            [UInt8(ascii: "\\"), UInt8(ascii: "q"), UInt8(ascii: "\"")],  // an invalid escape
            [],  // the end of the input
        ]
        for tail in later {
            for prefix in 0..<12 {
                let bytes =
                    [UInt8(ascii: "\"")] + Array(repeating: UInt8(ascii: "a"), count: prefix) + [0xFF] + tail
                let error = try #require(parsingError(bytes))
                #expect(error.reason == .invalidUTF8)
                #expect(error.offset == 1 + prefix)
                #expect(
                    error.message
                        == "Expected a UTF-8 lead byte but found byte 0xFF, a byte that never appears in UTF-8")
            }
        }
    }

    @Test("Invalid UTF-8 after an escape, in a key, and in a long key like a valid one is reported where it is")
    func invalidUTF8InKeysAndAfterEscapes() throws {
        let afterEscape = try #require(parsingError(quoted([UInt8(ascii: "\\"), UInt8(ascii: "n"), 0xC3, 0x28])))
        #expect(afterEscape.reason == .invalidUTF8)
        #expect(afterEscape.offset == 4)
        #expect(afterEscape.message == "Expected a UTF-8 continuation byte in 0x80-0xBF but found '('")

        let key = try #require(parsingError(Array(#"{"a"#.utf8) + [0xFF] + Array(#"b":1}"#.utf8)))
        #expect(key.reason == .invalidUTF8)
        #expect(key.offset == 3)

        let valid = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var invalid = valid
        invalid[12] = 0xFF
        let repeated =
            [UInt8(ascii: "[")] + [UInt8(ascii: "{")] + quoted(valid) + Array(":1},{".utf8) + quoted(invalid)
            + Array(":2}]".utf8)
        let longKey = try #require(parsingError(repeated))
        #expect(longKey.reason == .invalidUTF8)
        #expect(longKey.offset == 2 + 28 + 5 + 1 + 12)
    }

    @Test("Keys that repeat through a document, share a length and ends, or differ in one byte stay apart")
    func keysStayApart() throws {
        var members: [String] = []
        for index in 0..<3_000 {
            members.append(#"{"key\#(index)":\#(index),"abcdefgh_\#(index % 7)_ijklmnopq":\#(index % 7)}"#)
        }
        let json = try Json(parsing: "[" + members.joined(separator: ",") + "]")
        for index in [0, 1, 255, 256, 1_023, 1_024, 2_999] {
            #expect(json[index]["key\(index)"].int == index)
            #expect(json[index]["abcdefgh_\(index % 7)_ijklmnopq"].int == index % 7)
            #expect(json[index].object?.count == 2)
        }
    }

    @Test("Long keys that differ from a key read before in any one byte are keys of their own")
    func longKeysDifferingInOneByte() throws {
        for length in 17...66 {
            let base = (0..<length).map { Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8($0 % 26))) }
            var keys: [String] = [String(base)]
            for changed in 0..<length {
                var variant = base
                variant[changed] = "_"
                keys.append(String(variant))
            }
            // Each variant follows the base key, which is then in the cache with the same length and summary
            // whenever the changed byte lies between the first and last eight.
            let members = keys.enumerated().map { #"{"\#(keys[0])":0,"\#($1)":\#($0)}"# }
            let json = try Json(parsing: "[" + members.joined(separator: ",") + "]")
            for (index, key) in keys.enumerated() {
                #expect(json[index].entries?.map(\.key) == (index == 0 ? [key] : [keys[0], key]), "\(length) \(index)")
                #expect(json[index][key].int == index)
            }
        }
    }

    @Test("A key repeated in an object, plainly or through an escape, keeps the last value at the first place")
    func repeatedKeys() throws {
        let json = try Json(parsing: #"{"a":1,"b":2,"\u0061":3,"c":4,"b":5}"#)
        #expect(json.entries?.map(\.key) == ["a", "b", "c"])
        #expect(json.a.int == 3)
        #expect(json.b.int == 5)
        #expect(json.c.int == 4)
    }

    @Test("The typed decoder finds members of every key length, and no member for a near miss")
    func typedLookupByBytes() throws {
        let present = Lookup.names.filter { $0 != "missing" && $0 != "abcdefgX" }
        let members = present.enumerated().map { "\"\($0.element)\":\($0.offset)" }
        for order in [members, members.reversed()] {
            let data = Data(("{" + order.joined(separator: ",") + "}").utf8)
            let typed = try TypedJsonDecoder().decode(Lookup.self, from: data)
            let foundation = try JSONDecoder().decode(Lookup.self, from: data)
            #expect(typed.found == foundation.found)
            #expect(typed.found.count == present.count)
            for (offset, name) in present.enumerated() {
                #expect(typed.found[name] == offset, "\(name)")
            }
            #expect(typed.found["missing"] == nil)
        }
    }

    @Test("The typed decoder rejects invalid UTF-8 in a member nobody decodes, with its offset")
    func typedRejectsInvalidUTF8() throws {
        let bytes = Array(#"{"a":1,"b":"x"#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)
        do {
            _ = try TypedJsonDecoder().decode([String: Int].self, from: bytes)
            Issue.record("decoded invalid UTF-8")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.isEmpty)
            let underlying = try #require(context.underlyingError as? JsonParsingError)
            #expect(underlying.reason == .invalidUTF8)
            #expect(underlying.offset == 14)
        }
    }
}

@Suite("Scalars that generic code decodes")
struct GenericScalarDecodingTests {
    @Test("Arrays and dictionaries of String, Int, Double, Bool, Int64 and UInt64 decode exactly")
    func exactValues() throws {
        let decoder = TypedJsonDecoder()
        #expect(try decoder.decode([Int].self, from: Data("[1,-2,3]".utf8)) == [1, -2, 3])
        #expect(try decoder.decode([String].self, from: Data(#"["a","é\n",""]"#.utf8)) == ["a", "é\n", ""])
        #expect(try decoder.decode([Double].self, from: Data("[1.5,-2,3e2]".utf8)) == [1.5, -2, 300])
        #expect(try decoder.decode([Bool].self, from: Data("[true,false]".utf8)) == [true, false])
        #expect(try decoder.decode([Int64].self, from: Data("[-9223372036854775808]".utf8)) == [Int64.min])
        #expect(try decoder.decode([UInt64].self, from: Data("[18446744073709551615]".utf8)) == [UInt64.max])
        #expect(
            try decoder.decode([String: String].self, from: Data(#"{"a":"x","b":"y"}"#.utf8)) == ["a": "x", "b": "y"])
        #expect(try decoder.decode([String: [Int]].self, from: Data(#"{"a":[1],"b":[]}"#.utf8)) == ["a": [1], "b": []])
        #expect(try decoder.decode([Int?].self, from: Data("[1,null]".utf8)) == [1, nil])
    }

    @Test(
        "A wrong element is reported with JSONDecoder's kind of error and coding path",
        arguments: [
            ("[Int]", #"[1,2,"3"]"#), ("[Int]", "[1,null]"), ("[Int]", "[1.5]"), ("[Int]", "[1e30]"),
            ("[String]", #"["a",1]"#), ("[String]", #"["a",null]"#), ("[Double]", #"[1,"x"]"#),
            ("[Bool]", "[true,null]"), ("[Bool]", "[1]"), ("[Int64]", "[9223372036854775808]"),
            ("[UInt64]", "[-1]"), ("[String: String]", #"{"a":"x","b":2}"#), ("[String: [Int]]", #"{"a":[1,"x"]}"#),
        ])
    func wrongElements(type: String, json: String) throws {
        let data = Data(json.utf8)
        switch type {
        case "[Int]": try expectSameDecoding([Int].self, data)
        case "[String]": try expectSameDecoding([String].self, data)
        case "[Double]": try expectSameDecoding([Double].self, data)
        case "[Bool]": try expectSameDecoding([Bool].self, data)
        case "[Int64]": try expectSameDecoding([Int64].self, data)
        case "[UInt64]": try expectSameDecoding([UInt64].self, data)
        case "[String: String]": try expectSameDecoding([String: String].self, data)
        default: try expectSameDecoding([String: [Int]].self, data)
        }
        let outcome = DecodingOutcome {
            try TypedJsonDecoder().decode([String: [Int]].self, from: Data(#"{"a":[1,"x"]}"#.utf8))
        }
        #expect(outcome == .failure(kind: "typeMismatch", path: ["a", "[1]"]))
    }
}

@Suite("Parsed containers of every small size")
struct SmallContainerTests {
    @Test("Arrays and objects of 0 to 6 members, nested, keep their members in order")
    func everySmallSize() throws {
        for size in 0...6 {
            let elements = (0..<size).map { "[\($0),\"s\($0)\"]" }
            let members = (0..<size).map { "\"k\($0)\":{\"v\":\($0)}" }
            let json = try Json(
                parsing: "{\"a\":[" + elements.joined(separator: ",") + "],\"o\":{"
                    + members.joined(separator: ",") + "}}")
            #expect(json.a.array?.count == size)
            #expect(json.o.entries?.map(\.key) == (0..<size).map { "k\($0)" })
            for index in 0..<size {
                #expect(json.a[index][0].int == index)
                #expect(json.a[index][1].string == "s\(index)")
                #expect(json.o["k\(index)"].v.int == index)
            }
        }
    }
}
