import Foundation
import RequestKitJSON
import Testing

/// The shared data folder beside the repository (`../shared/data`).
let sharedDataFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Codable
    .deletingLastPathComponent()  // RequestKitJSONTests
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // the package root
    .deletingLastPathComponent()
    .appendingPathComponent("shared/data")

private let benchmarkDataExists = FileManager.default.fileExists(
    atPath: sharedDataFolder.appendingPathComponent("json-benchmark").path)
private let testSuiteExists = FileManager.default.fileExists(
    atPath: sharedDataFolder.appendingPathComponent("JSONTestSuite/test_parsing").path)

@Suite("TypedJsonDecoder against JSONDecoder")
struct TypedJsonDecoderTests {
    @Test(
        "Every JSONTestSuite y_ document decodes into Json exactly as JSONDecoder decodes it",
        .enabled(if: testSuiteExists, "../shared/data/JSONTestSuite is absent"))
    func decodesTestSuiteDocuments() throws {
        let folder = sharedDataFolder.appendingPathComponent("JSONTestSuite/test_parsing")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.lastPathComponent.hasPrefix("y_") }
        #expect(files.count == 95)
        for file in files {
            let data = try Data(contentsOf: file)
            let foundation = try? JSONDecoder().decode(Json.self, from: data)
            let typed = try? TypedJsonDecoder().decode(Json.self, from: data)
            #expect(typed == foundation, "\(file.lastPathComponent)")
            #expect(typed != nil || foundation == nil, "\(file.lastPathComponent)")
        }
    }

    @Test(
        "twitter.json and citm_catalog.json decode into their models as JSONDecoder decodes them",
        .enabled(if: benchmarkDataExists, "../shared/data/json-benchmark is absent"))
    func decodesBenchmarkDocuments() async throws {
        // Each step takes a while in a debug build; yielding between them lets the tests running alongside go on.
        let folder = sharedDataFolder.appendingPathComponent("json-benchmark")
        let twitter = try Data(contentsOf: folder.appendingPathComponent("twitter.json"))
        try expectSameDecoding(TwitterSearch.self, twitter)
        await Task.yield()
        try expectSameDecoding(TwitterSearch.self, twitter) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        await Task.yield()
        let catalog = try Data(contentsOf: folder.appendingPathComponent("citm_catalog.json"))
        try expectSameDecoding(Catalog.self, catalog)
        await Task.yield()
        let typed = try TypedJsonDecoder().decode(TwitterSearch.self, from: twitter)
        #expect(typed.statuses.count == 100)
        #expect(typed.statuses[0].user.screenName == "ayuu0123")
    }

    @Test(
        "Scalars decode alike, including integers written with a fraction or an exponent, and out-of-range numbers fail alike",
        arguments: [
            #"{"bool":true,"string":"s","double":1.5,"float":0.1,"int":-7,"int8":-128,"int16":32767,"int32":1e3,"int64":9223372036854775807,"uint":1.0,"uint8":255,"uint16":0,"uint32":4294967295,"uint64":18446744073709551615,"optionalBool":null,"optionalString":"\u00e9\n","optionalDouble":-0.0}"#,
            #"{"bool":true,"string":"s","double":1e400,"float":0.1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1e39,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1e-400,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1.5,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1,"int8":128,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":9223372036854775808,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":-1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":18446744073709551616}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1.0000000000000001,"int8":1,"int16":1,"int32":1,"int64":123456789012345678e1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":null,"string":"s","double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":null,"double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":1,"double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":"1","float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1}"#,
            #"{"bool":true,"string":"s","double":1,"float":1,"int":1,"int8":1,"int16":1,"int32":1,"int64":1,"uint":1,"uint8":1,"uint16":1,"uint32":1,"uint64":1,"optionalInt":"x"}"#,
            #"[1]"#, "null", #"{"bool":1}"#, "{", "",
        ])
    func decodesScalars(text: String) throws {
        try expectSameDecoding(Scalars.self, text)
    }

    @Test(
        "Nested optionals, enums with associated values and dictionaries with non-string keys decode alike",
        arguments: [
            #"{"a":1,"b":["x",null],"c":{"k":null,"l":2}}"#, #"{"a":null,"c":{}}"#, #"{"c":{}}"#,
            #"{"a":"1","c":{}}"#, #"{"a":1,"b":[1],"c":{}}"#, #"{"a":1,"b":null}"#,
        ])
    func decodesNestedOptionals(text: String) throws {
        try expectSameDecoding(NestedOptionals.self, text)
    }

    @Test(
        "Enums with associated values decode alike",
        arguments: [
            #"{"circle":{"radius":2.5}}"#, #"{"rectangle":{"width":2,"height":3}}"#,
            #"{"labelled":{"_0":"a","_1":{"empty":{}}}}"#, #"{"labelled":{"_0":"a","_1":null}}"#,
            #"{"labelled":{"_0":"a"}}"#, #"{"empty":{}}"#, #"{"circle":{}}"#, #"{"square":{}}"#,
            #"{"circle":{"radius":1},"empty":{}}"#, #"{"rectangle":{"width":2,"height":"3"}}"#, #"[]"#,
        ])
    func decodesEnums(text: String) throws {
        try expectSameDecoding(Shape.self, text)
    }

    @Test(
        "Dictionaries with integer and enum keys decode alike",
        arguments: [
            #"{"byInt":{"1":"a","-2":"b"},"byUInt8":{"255":true},"byEnum":{"red":1,"green":2}}"#,
            #"{"byInt":{"x":"a"},"byUInt8":{},"byEnum":{}}"#, #"{"byInt":{},"byUInt8":{"256":true},"byEnum":{}}"#,
            #"{"byInt":{},"byUInt8":{},"byEnum":{"blue":1}}"#, #"{"byInt":[1,"a"],"byUInt8":{},"byEnum":{}}"#,
        ])
    func decodesNonStringKeys(text: String) throws {
        try expectSameDecoding(NonStringKeys.self, text)
    }

    @Test("Subclasses decode through superDecoder() and through the shared decoder alike")
    func decodesSubclasses() throws {
        try expectSameDecoding(Dog.self, #"{"breed":"corgi","super":{"name":"Rex"}}"#)
        try expectSameDecoding(Dog.self, #"{"breed":"corgi"}"#)
        try expectSameDecoding(Dog.self, #"{"breed":"corgi","super":{"name":1}}"#)
        try expectSameDecoding(Cat.self, #"{"lives":9,"name":"Tom"}"#)
        try expectSameDecoding(Cat.self, #"{"lives":9}"#)
    }

    @Test(
        "nestedContainer, nestedUnkeyedContainer and superDecoder decode alike, with the same paths on failure",
        arguments: [
            #"{"id":1,"address":{"street":"Main","city":"Oslo"},"tags":[7,"a","b"],"owner":{"name":"Ada"}}"#,
            #"{"id":1,"address":{"street":"Main"},"tags":[7],"owner":{"name":"Ada"}}"#,
            #"{"id":1,"address":[],"tags":[7],"owner":{"name":"Ada"}}"#,
            #"{"id":1,"address":{"street":"Main","city":"Oslo"},"tags":[],"owner":{"name":"Ada"}}"#,
            #"{"id":1,"address":{"street":"Main","city":"Oslo"},"tags":[7,"a",3],"owner":{"name":"Ada"}}"#,
            #"{"id":1,"address":{"street":"Main","city":"Oslo"},"tags":[7]}"#,
            #"{"id":1,"address":null,"tags":[7],"owner":{}}"#,
        ])
    func decodesNestedContainers(text: String) throws {
        try expectSameDecoding(Flattened.self, text)
    }

    @Test("Arrays report the index of a bad element, and an array that ends early, alike")
    func reportsArrayPaths() throws {
        try expectSameDecoding([[Int]].self, "[[1,2],[3,\"x\"]]")
        try expectSameDecoding([NestedOptionals].self, #"[{"c":{}},{"c":[]}]"#)
        try expectSameDecoding([Int?].self, "[1,null,3]")
        try expectSameDecoding([Int].self, "[1,null,3]")
        // From 2^53 on, JSONDecoder truncates a fraction; below, it rejects one.
        try expectSameDecoding([Int64].self, "[-121231231239053240.2, 12345678901234567.5, 1.5e17]")
        try expectSameDecoding([Int64].self, "[-0.5]")
        try expectSameDecoding([Int64].self, "[2123117949273077266.23]")
        try expectSameDecoding([Int64].self, "[-9223372036854775808.0]")
        try expectSameDecoding([UInt64].self, "[10000000000000000000.000, 1000000000000000000000e-3]")
        // JSONDecoder reads these as a Decimal, which keeps digits while they fit 128 bits and drops the rest of a
        // long fraction (found by the fuzzer).
        try expectSameDecoding(
            [Int64].self, "[1000000020000000165.00000000000000000000000000000010000, 1000000020000000165.5]")
        try expectSameDecoding([UInt64].self, "[1000000020000000165.000000000000000000009]")
        try expectSameDecoding([Int64].self, "[1000000020000000165.00000000000000000009]")
        #expect(
            try TypedJsonDecoder().decode(
                [Int64].self, from: Data("[1000000020000000165.000000000000000000009, 1.5e18]".utf8))
                == [1_000_000_020_000_000_165, 1_500_000_000_000_000_000])
        try expectSameDecoding(Json.self, "[1000000020000000165.00000000000000000000000000000010000]")
        // A set's order is its own, so sets compare as sets rather than by their encoding.
        let set = Data(#"["a","b","a"]"#.utf8)
        let typedSet = try #require(TypedJsonDecoder(matching: JSONDecoder())).decode(Set<String>.self, from: set)
        #expect(typedSet == (try JSONDecoder().decode(Set<String>.self, from: set)))
        #expect(typedSet == ["a", "b"])
        try expectSameDecoding([String: [Int]].self, #"{"a":[1],"b":[2,false]}"#)
    }

    @Test("Repeated keys keep the first value, as JSONDecoder does, with or without a key strategy")
    func keepsFirstOfRepeatedKeys() throws {
        try expectSameDecoding([String: Int].self, #"{"a":1,"a":2}"#)
        try expectSameDecoding(SnakeCase.self, #"{"userId":1,"userId":2,"firstName":"a","nested":{}}"#)
        try expectSameDecoding(SnakeCase.self, #"{"user_id":1,"userId":2,"first_name":"a","nested":{}}"#) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        }
        try expectSameDecoding(SnakeCase.self, #"{"user\u005fid":1,"first_name":"\u0061","nested":{"a_b":1}}"#) {
            $0.keyDecodingStrategy = .convertFromSnakeCase
        }
    }

    @Test(
        "Key strategies convert object keys but not the keys of [String: Value]",
        arguments: [
            #"{"user_id":1,"first_name":"Ada","__private_":true,"url_string":"x","nested":{"a_b":1}}"#,
            #"{"user_id":1,"first_name":"Ada","nested":{"a_b":1,"A_B":2}}"#,
            #"{"userId":1,"firstName":"Ada","nested":{}}"#,
            #"{"user__id":1,"first_name":"Ada","nested":{}}"#,
        ])
    func convertsKeys(text: String) throws {
        try expectSameDecoding(SnakeCase.self, text) { $0.keyDecodingStrategy = .convertFromSnakeCase }
        try expectSameDecoding(SnakeCase.self, text) {
            $0.keyDecodingStrategy = .custom { path in
                let last = path.last?.stringValue ?? ""
                return JsonTestKey(camelCase(last))
            }
        }
    }

    @Test("Date, Data, URL and Decimal decode with every strategy as JSONDecoder decodes them")
    func decodesFoundationValues() throws {
        let base = #"{"data":"AQID","url":"https://example.com/a?b=c","decimal":12345678901234567890.123"#
        try expectSameDecoding(FoundationValues.self, base + #","date":1.5e9}"#) {
            $0.dateDecodingStrategy = .secondsSince1970
        }
        try expectSameDecoding(FoundationValues.self, base + #","date":1500000000123,"optionalDate":null}"#) {
            $0.dateDecodingStrategy = .millisecondsSince1970
        }
        try expectSameDecoding(FoundationValues.self, base + #","date":"2024-02-29T12:34:56Z"}"#) {
            $0.dateDecodingStrategy = .iso8601
        }
        try expectSameDecoding(FoundationValues.self, base + #","date":"yesterday"}"#) {
            $0.dateDecodingStrategy = .iso8601
        }
        try expectSameDecoding(FoundationValues.self, base + #","date":12.5}"#)
        try expectSameDecoding(FoundationValues.self, base + #","date":"12.5"}"#)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy-MM-dd"
        try expectSameDecoding(FoundationValues.self, base + #","date":"2024-02-29"}"#) {
            $0.dateDecodingStrategy = .formatted(formatter)
        }
        try expectSameDecoding(FoundationValues.self, base + #","date":"29.02.2024"}"#) {
            $0.dateDecodingStrategy = .formatted(formatter)
        }
        try expectSameDecoding(FoundationValues.self, base + #","date":[2024,2]}"#) {
            $0.dateDecodingStrategy = .custom { decoder in
                var container = try decoder.unkeyedContainer()
                let year = try container.decode(Int.self)
                let month = try container.decode(Int.self)
                return Date(timeIntervalSince1970: Double(year * 100 + month))
            }
        }
        let dated = #"{"url":"https://example.com","decimal":1,"date":0,"#
        try expectSameDecoding(FoundationValues.self, dated + #""data":"not base64!"}"#)
        try expectSameDecoding(FoundationValues.self, dated + #""data":[1,2,3]}"#) {
            $0.dataDecodingStrategy = .deferredToData
        }
        try expectSameDecoding(FoundationValues.self, dated + #""data":"0102"}"#) {
            $0.dataDecodingStrategy = .custom { decoder in
                let hex = try decoder.singleValueContainer().decode(String.self)
                return Data(hex.utf8)
            }
        }
        try expectSameDecoding(FoundationValues.self, #"{"url":"","decimal":1,"date":0,"data":""}"#)
        try expectSameDecoding(FoundationValues.self, #"{"url":"a b","decimal":"1","date":0,"data":""}"#)
        try expectSameDecoding(FoundationValues.self, #"{"url":"a","decimal":null,"date":0,"data":""}"#)
    }

    @Test("Non-conforming floats decode from the strings the strategy names")
    func decodesNonConformingFloats() throws {
        let text = #"{"values":["+Infinity","-Infinity","NaN",1.5]}"#
        try expectSameDecoding(Doubles.self, text)
        try expectSameDecoding(Doubles.self, text) {
            $0.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        let values = try #require(TypedJsonDecoder(matching: decoder)).decode(Doubles.self, from: Data(text.utf8))
            .values
        #expect(values[0] == .infinity && values[1] == -.infinity && values[2].isNaN && values[3] == 1.5)
    }

    @Test("userInfo reaches init(from:)")
    func passesUserInfo() throws {
        struct Versioned: Decodable {
            static let key = CodingUserInfoKey(rawValue: "version")
            let version: Int
            init(from decoder: any Decoder) throws {
                version = Self.key.flatMap { decoder.userInfo[$0] as? Int } ?? 0
            }
        }
        let key = try #require(Versioned.key)
        var decoder = TypedJsonDecoder()
        decoder.userInfo[key] = 3
        #expect(try decoder.decode(Versioned.self, from: Data("{}".utf8)).version == 3)
        let foundation = JSONDecoder()
        foundation.userInfo[key] = 4
        #expect(
            try #require(TypedJsonDecoder(matching: foundation)).decode(Versioned.self, from: Data("{}".utf8)).version
                == 4)
    }

    @Test("A JSONDecoder with JSON5, a top-level dictionary or a subclass is not matched, so it keeps its behaviour")
    func declinesWhatItCannotHonour() {
        let json5 = JSONDecoder()
        json5.allowsJSON5 = true
        #expect(TypedJsonDecoder(matching: json5) == nil)
        let topLevel = JSONDecoder()
        topLevel.assumesTopLevelDictionary = true
        #expect(TypedJsonDecoder(matching: topLevel) == nil)
        final class Custom: JSONDecoder, @unchecked Sendable {}
        #expect(TypedJsonDecoder(matching: Custom()) == nil)
        #expect(TypedJsonDecoder(matching: JSONDecoder()) != nil)
    }

    @Test("Invalid JSON is dataCorrupted at the root, with the parser's error underneath")
    func reportsInvalidJSON() throws {
        let error = try #require(throws: DecodingError.self) {
            try TypedJsonDecoder().decode([Int].self, from: Data("[1, 2,]".utf8))
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("expected dataCorrupted, got \(error)")
            return
        }
        #expect(context.codingPath.isEmpty)
        let underlying = try #require(context.underlyingError as? JsonParsingError)
        #expect(underlying.offset == 6)
        #expect(underlying.reason == .unexpectedCharacter)
    }

    @Test(
        "Unlike JSONDecoder, invalid JSON is rejected even where JSONDecoder is lenient",
        arguments: [#"{"a":1,}"#, "[1,]", #"{"a":01}"#, #"{"a":"\x"}"#])
    func rejectsWhatJSONDecoderTolerates(text: String) throws {
        struct Ignoring: Decodable {
            init(from decoder: any Decoder) throws {}
        }
        // JSONDecoder accepts trailing commas, and checks numbers and strings only when a type reads them.
        #expect(throws: Never.self) { try JSONDecoder().decode(Ignoring.self, from: Data(text.utf8)) }
        let error = try #require(throws: DecodingError.self) {
            try TypedJsonDecoder().decode(Ignoring.self, from: Data(text.utf8))
        }
        #expect(DecodingOutcome.kind(of: error) == "dataCorrupted")
    }

    @Test("A decoder kept beyond decode(_:from:) still reads its document")
    func keepsTheDocumentAlive() throws {
        final class Keeper: Decodable {
            let decoder: any Decoder
            init(from decoder: any Decoder) throws {
                self.decoder = try decoder.container(keyedBy: JsonTestKey.self).superDecoder(forKey: JsonTestKey("a"))
            }
        }
        let keeper = try TypedJsonDecoder().decode(Keeper.self, from: Data(#"{"a":{"b":"kept"}}"#.utf8))
        let container = try keeper.decoder.container(keyedBy: JsonTestKey.self)
        #expect(try container.decode(String.self, forKey: JsonTestKey("b")) == "kept")
        #expect(container.codingPath.map(\.stringValue) == ["a"])
    }
}

/// A coding key from any string.
struct JsonTestKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) {
        stringValue = string
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

/// A snake-case conversion for the custom key strategy test, written independently of the decoder's.
private func camelCase(_ key: String) -> String {
    let words = key.split(separator: "_")
    guard let first = words.first else { return key }
    return String(first) + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
}
