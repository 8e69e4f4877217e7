import Foundation
import RequestKitJSON
import Testing

/// Parses `bytes` and returns the error, or `nil` when parsing succeeded.
private func parsingError(_ bytes: [UInt8], options: Json.ParsingOptions = .init()) -> JsonParsingError? {
    do {
        _ = try Json(parsing: bytes, options: options)
        return nil
    } catch {
        return error
    }
}

private func parsingError(_ text: String) -> JsonParsingError? {
    parsingError(Array(text.utf8))
}

@Suite("Parsing JSON")
struct JsonParsingTests {
    @Test("try Json(text) parses a variable and a literal alike; Json(string:) and a literal element make strings")
    func parsingInitializer() throws {
        let text = "[1, 2]"
        let parsed = try Json(text)
        #expect(parsed.array?.count == 2)
        #expect(parsed[1].int == 2)
        let literal = try Json("[1, 2]")
        #expect(literal == [1, 2])
        #expect(Json(string: text).string == "[1, 2]")
        let element: Json = ["[1, 2]"]
        #expect(element[0].string == "[1, 2]")
        let notJSON = "Ada"
        #expect(throws: JsonParsingError.self) { try Json(notJSON) }
    }

    @Test("Every kind of value parses, with whitespace around and between tokens")
    func parsesAllKinds() throws {
        let json = try Json(parsing: " \t\r\n{ \"a\" : [ null , true , false , 1 , -2.5 , \"s\" , { } , [ ] ] }\n")
        #expect(json.a[0].isNull)
        #expect(json.a[1].bool == true)
        #expect(json.a[2].bool == false)
        #expect(json.a[3].int == 1)
        #expect(json.a[4].double == -2.5)
        #expect(json.a[5].string == "s")
        #expect(json.a[6].entries?.isEmpty == true)
        #expect(json.a[7].array == [])
        #expect(json.a.array?.count == 8)
    }

    @Test("Indentation of any width, tabs and CRLF line breaks are whitespace")
    func skipsIndentation() throws {
        let spaces = String(repeating: " ", count: 17)
        let json = try Json(parsing: "[\n\(spaces)1,\r\n\t 2,\n        \n\(spaces)\(spaces)3\n]\n        ")
        #expect(json == [1, 2, 3])
        let error = try #require(parsingError("[\n        x]"))
        #expect(error.line == 2)
        #expect(error.column == 9)
        #expect(error.offset == 10)
    }

    @Test("A scalar is a whole document")
    func parsesScalarDocuments() throws {
        #expect(try Json(parsing: "42").int == 42)
        #expect(try Json(parsing: "\"x\"").string == "x")
        #expect(try Json(parsing: "null").isNull)
    }

    @Test("Data, String, [UInt8], ArraySlice and a non-contiguous sequence parse alike")
    func parsesFromEveryInputType() throws {
        let text = #"{"id":[1,2]}"#
        let expected: Json = ["id": [1, 2]]
        #expect(try Json(parsing: text) == expected)
        #expect(try Json(parsing: Data(text.utf8)) == expected)
        #expect(try Json(parsing: Array(text.utf8)) == expected)
        #expect(try Json(parsing: Array("xx\(text)".utf8)[2...]) == expected)
        #expect(try Json(parsing: text.utf8.lazy.map { $0 }) == expected)
    }

    @Test("A UTF-8 byte order mark at the start is skipped; anywhere else it is an error")
    func handlesByteOrderMark() throws {
        #expect(try Json(parsing: [0xEF, 0xBB, 0xBF] + Array("[1]".utf8)) == [1])
        let error = try #require(parsingError(Array("[1]".utf8) + [0xEF, 0xBB, 0xBF]))
        #expect(error.reason == .unexpectedCharacter)
        #expect(error.offset == 3)
    }

    @Test("All escapes decode: quote, backslash, slash, b, f, n, r, t and \\u")
    func decodesEscapes() throws {
        let json = try Json(parsing: #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\u0000""#)
        #expect(json.string == "\"\\/\u{08}\u{0C}\n\r\tAé€\u{00}")
    }

    @Test("A surrogate pair escape decodes to one scalar")
    func decodesSurrogatePairs() throws {
        #expect(try Json(parsing: #""\uD83D\uDE00 ok""#).string == "😀 ok")
        #expect(try Json(parsing: #""a\uDBFF\uDFFFb""#).string == "a\u{10FFFF}b")
    }

    @Test("A lone or mismatched surrogate escape is an error, not a crash")
    func rejectsLoneSurrogates() throws {
        for text in [#""\uD800""#, #""\uD800x""#, #""\uDC00""#, #""\uD800\u0041""#, #""\uD800\n""#] {
            let error = try #require(parsingError(text), "\(text)")
            #expect(error.reason == .loneSurrogate, "\(text)")
            #expect(error.offset == 1, "\(text)")
        }
    }

    @Test("Unknown escapes and short \\u escapes are errors")
    func rejectsInvalidEscapes() throws {
        #expect(parsingError(#""\x""#)?.reason == .invalidEscape)
        #expect(parsingError(#""\u12G4""#)?.reason == .invalidEscape)
        #expect(parsingError(#""\u12"#)?.reason == .unexpectedEnd)
        #expect(parsingError(#""\'""#)?.reason == .invalidEscape)
    }

    @Test("Well-formed multi-byte UTF-8 is kept")
    func keepsMultiByteUTF8() throws {
        let json = try Json(parsing: "[\"é€😀 日本語\", \"\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}\"]")
        #expect(json[0].string == "é€😀 日本語")
        #expect(json[1].string == "\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}")
    }

    @Test(
        "Ill-formed UTF-8 is rejected: overlongs, encoded surrogates, truncations, stray continuations, bytes above F4",
        arguments: [
            [0xC0, 0xAF],  // overlong "/"
            [0xC1, 0xBF],  // overlong
            [0xE0, 0x80, 0xAF],  // overlong 3-byte
            [0xF0, 0x80, 0x80, 0xAF],  // overlong 4-byte
            [0xED, 0xA0, 0x80],  // U+D800 encoded
            [0xED, 0xBF, 0xBF],  // U+DFFF encoded
            [0xF4, 0x90, 0x80, 0x80],  // U+110000
            [0xF5, 0x80, 0x80, 0x80],  // lead byte above F4
            [0xFF],
            [0x80],  // continuation without a lead
            [0xE2, 0x82],  // truncated "€"
            [0xF0, 0x9F, 0x98],  // truncated "😀"
        ] as [[UInt8]])
    func rejectsInvalidUTF8(sequence: [UInt8]) throws {
        let error = try #require(parsingError([UInt8(ascii: "\"")] + sequence + [UInt8(ascii: "\"")]))
        #expect(error.reason == .invalidUTF8)
    }

    @Test("A truncated UTF-8 sequence at the very end of the input is an error")
    func rejectsTruncatedUTF8AtEnd() throws {
        let error = try #require(parsingError([UInt8(ascii: "\""), 0xE2, 0x82]))
        #expect(error.reason == .invalidUTF8)
        #expect(error.offset == 3)
    }

    @Test("Raw control characters inside a string are rejected; escaped ones are fine")
    func rejectsControlCharacters() throws {
        for byte: UInt8 in [0x00, 0x09, 0x0A, 0x1F] {
            let error = try #require(parsingError([UInt8(ascii: "\""), UInt8(ascii: "a"), byte, UInt8(ascii: "\"")]))
            #expect(error.reason == .controlCharacterInString)
            #expect(error.offset == 2)
        }
        #expect(try Json(parsing: #""\u001F\t""#).string == "\u{1F}\t")
        #expect(try Json(parsing: "\"\u{7F}\"").string == "\u{7F}")
    }

    @Test(
        "Grammar errors are rejected",
        arguments: [
            "", " ", "[1,]", #"{"a":1,}"#, "[1 2]", #"{"a" 1}"#, #"{a:1}"#, "[", "{", #"{"a":"#, "]", "[1]]", "1 2",
            "tru", "nul", "True", "'a'", "\"abc", "[01]", "-", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity",
            "--1", "1.e5", "[1,,2]", "{,}", "/* */[]", "[1]x",
        ])
    func rejectsGrammarErrors(text: String) {
        #expect(parsingError(text) != nil, "\(text)")
    }

    @Test("An error says what was expected, what was found, and where (1-based line and column, 0-based offset)")
    func reportsErrorPositions() throws {
        let error = try #require(parsingError("{\n  \"a\": 1,\n  \"b\": tru\n}"))
        #expect(error.reason == .unexpectedCharacter)
        #expect(error.line == 3)
        #expect(error.column == 11)
        #expect(error.offset == 22)
        #expect(error.message == "Expected 'true' but found byte 0x0A")
        #expect(error.description == "Expected 'true' but found byte 0x0A at line 3, column 11 (byte offset 22)")
    }

    @Test("Columns count Unicode scalars, not bytes")
    func countsColumnsInScalars() throws {
        let error = try #require(parsingError("[\"é😀\" x]"))
        #expect(error.message == "Expected ',' or ']' after an array element but found 'x'")
        #expect(error.line == 1)
        #expect(error.column == 7)
        #expect(error.offset == 10)
    }

    @Test("The end of input, a trailing comma and trailing garbage have their own messages")
    func describesCommonMistakes() throws {
        let end = try #require(parsingError("[1, 2"))
        #expect(end.reason == .unexpectedEnd)
        #expect(end.message == "Expected ',' or ']' after an array element but found the end of the input")
        #expect(end.column == 6)
        let comma = try #require(parsingError("[1, 2,]"))
        #expect(comma.message == "Expected a value but found ']'")
        #expect(comma.offset == 6)
        let garbage = try #require(parsingError("{} x"))
        #expect(garbage.message == "Expected the end of the document but found 'x'")
        #expect(garbage.column == 4)
        let leadingZero = try #require(parsingError("[012]"))
        #expect(leadingZero.reason == .invalidNumber)
        #expect(leadingZero.offset == 2)
        let binary = try #require(parsingError([UInt8(ascii: "["), 0x01]))
        #expect(binary.message == "Expected a value but found byte 0x01")
    }

    @Test("Nesting up to the depth limit parses; one level more is an error, not a stack overflow")
    func limitsDepth() throws {
        let limit = Json.ParsingOptions().maximumDepth
        #expect(limit == 512)
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try Json(parsing: deepest) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = try #require(parsingError(tooDeep))
        #expect(error.reason == .nestingTooDeep)
        #expect(error.offset == limit)
        #expect(error.message == "Arrays and objects nest deeper than the limit of 512")
        let hostile = String(repeating: #"{"a":["#, count: 100_000)
        #expect(parsingError(hostile)?.reason == .nestingTooDeep)
    }

    @Test("The depth limit is configurable and counts objects and arrays alike")
    func configuresDepth() throws {
        let options = Json.ParsingOptions(maximumDepth: 2)
        #expect(throws: Never.self) { try Json(parsing: #"{"a":[1]}"#, options: options) }
        #expect(parsingError(Array(#"{"a":[{}]}"#.utf8), options: options)?.reason == .nestingTooDeep)
        #expect(parsingError(Array("1".utf8), options: .init(maximumDepth: 0)) == nil)
        #expect(parsingError(Array("[]".utf8), options: .init(maximumDepth: 0))?.reason == .nestingTooDeep)
    }

    @Test("When an object repeats a key, the last value wins at the first key's position")
    func resolvesDuplicateKeys() throws {
        let json = try Json(parsing: #"{"a":1,"b":2,"a":3}"#)
        #expect(json.a.int == 3)
        #expect(json.entries?.map(\.key) == ["a", "b"])
        #expect(json.serializedString() == #"{"a":3,"b":2}"#)
    }

    @Test("Duplicate keys resolve the same way in objects of every size", arguments: [3, 40, 63, 64, 200])
    func resolvesDuplicateKeysAtEverySize(memberCount: Int) throws {
        let members = (0..<memberCount).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let json = try Json(parsing: "{\(members),\"k1\":\"last\",\"k\(memberCount - 1)\":null}")
        #expect(json.entries?.count == memberCount)
        #expect(json.k1.string == "last")
        #expect(json["k\(memberCount - 1)"].isNull)
        #expect(json.entries?[1].key == "k1")
        #expect(json.k0.int == 0)
    }

    @Test("Keys that share their length and their first and last eight bytes stay distinct")
    func keepsSimilarKeysApart() throws {
        let json = try Json(parsing: #"{"abcdefgh-1-ijklmnop":1,"abcdefgh-2-ijklmnop":2,"abcdefgh-1-ijklmnop":3}"#)
        #expect(json.entries?.map(\.key) == ["abcdefgh-1-ijklmnop", "abcdefgh-2-ijklmnop"])
        #expect(json["abcdefgh-1-ijklmnop"].int == 3)
        #expect(json["abcdefgh-2-ijklmnop"].int == 2)
    }

    @Test("Keys repeated through many objects, and look-alike keys in different objects, keep their own text")
    func sharesRepeatedKeysExactly() throws {
        // The parser shares keys that repeat; one that looks like a shared one (same length, same first and last
        // eight bytes) or that is longer than the shared ones must still come out as written.
        let long = String(repeating: "k", count: 80)
        let objects = (0..<300).map { index in
            #"{"name":\#(index),"abcdefgh-\#(index % 3)-ijklmnop":true,"\#(long)\#(index % 2)":[],"é\u00e9":\#(index)}"#
        }
        let json = try Json(parsing: "[" + objects.joined(separator: ",") + "]")
        let elements = try #require(json.array)
        #expect(elements.count == 300)
        for (index, element) in elements.enumerated() {
            #expect(
                element.entries?.map(\.key)
                    == ["name", "abcdefgh-\(index % 3)-ijklmnop", "\(long)\(index % 2)", "é\u{e9}"])
            #expect(element.name.int == index)
            #expect(element["é\u{e9}"].int == index)
        }
    }

    @Test("Object keys keep their document order")
    func keepsKeyOrder() throws {
        let json = try Json(parsing: #"{"z":1,"a":2,"m":3}"#)
        #expect(json.entries?.map(\.key) == ["z", "a", "m"])
    }
}
