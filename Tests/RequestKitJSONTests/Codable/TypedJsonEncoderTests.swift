import Foundation
import RequestKitJSON
import Testing

/// Encodes `value` with `JSONEncoder` (sorted keys, so that its output is deterministic) and with
/// `TypedJsonEncoder` holding the same strategies, and expects the same bytes, or errors of the same kind at the
/// same coding path.
private func expectSameEncoding<Value: Encodable>(
    _ value: Value, configure: (JSONEncoder) -> Void = { _ in }, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for formatting: JSONEncoder.OutputFormatting in [
        [.sortedKeys], [.sortedKeys, .prettyPrinted],
        [.sortedKeys, .withoutEscapingSlashes],
    ] {
        let foundation = JSONEncoder()
        configure(foundation)
        foundation.outputFormatting = formatting
        let typed = try #require(TypedJsonEncoder(matching: foundation), sourceLocation: sourceLocation)
        #expect(
            encodingOutcome { try typed.encode(value) } == encodingOutcome { try foundation.encode(value) },
            "\(formatting)", sourceLocation: sourceLocation)
    }
}

private func encodingOutcome(_ body: () throws -> Data) -> String {
    do {
        return String(decoding: try body(), as: UTF8.self)
    } catch let error as EncodingError {
        guard case .invalidValue(_, let context) = error else { return "other EncodingError" }
        return "invalidValue at \(context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue })"
    } catch {
        return "\(type(of: error))"
    }
}

private let benchmarkFolder = sharedDataFolder.appendingPathComponent("json-benchmark")

@Suite("TypedJsonEncoder against JSONEncoder")
struct TypedJsonEncoderTests {
    @Test(
        "The benchmark models encode to the same bytes",
        .enabled(if: FileManager.default.fileExists(atPath: benchmarkFolder.path), "../shared/data is absent"))
    func encodesBenchmarkModels() async throws {
        // Each step takes a while in a debug build; yielding between them lets the tests running alongside go on.
        let twitter = try JSONDecoder().decode(
            TwitterSearch.self, from: Data(contentsOf: benchmarkFolder.appendingPathComponent("twitter.json")))
        await Task.yield()
        try expectSameEncoding(twitter)
        await Task.yield()
        try expectSameEncoding(twitter) { $0.keyEncodingStrategy = .convertToSnakeCase }
        await Task.yield()
        let catalog = try JSONDecoder().decode(
            Catalog.self, from: Data(contentsOf: benchmarkFolder.appendingPathComponent("citm_catalog.json")))
        await Task.yield()
        try expectSameEncoding(catalog)
    }

    @Test("Scalars, optionals, enums, non-string keys, subclasses and nested containers encode to the same bytes")
    func encodesModels() throws {
        let decoder = JSONDecoder()
        try expectSameEncoding(
            try decoder.decode(NestedOptionals.self, from: Data(#"{"a":1,"b":["x",null],"c":{"k":null}}"#.utf8)))
        try expectSameEncoding(Shape.labelled("a/b \"q\" \n\u{1}", .rectangle(width: 2, height: 3)))
        try expectSameEncoding([Shape.circle(radius: 0.1), .empty])
        try expectSameEncoding(
            NonStringKeys(byInt: [1: "a", -20: "b"], byUInt8: [255: true], byEnum: [.red: 1, .green: 2]))
        try expectSameEncoding(
            try decoder.decode(Dog.self, from: Data(#"{"breed":"corgi","super":{"name":"Rex"}}"#.utf8)))
        try expectSameEncoding(try decoder.decode(Cat.self, from: Data(#"{"lives":9,"name":"Tom"}"#.utf8)))
        try expectSameEncoding(
            try decoder.decode(
                Flattened.self,
                from: Data(
                    #"{"id":1,"address":{"street":"Main","city":"Oslo"},"tags":[7,"a"],"owner":{"name":"Ada"}}"#.utf8)))
        try expectSameEncoding(
            Scalars(
                bool: true, string: "é/\t", double: 1e300, float: 0.1, int: .min, int8: -8, int16: 16, int32: 32,
                int64: .max, uint: .max, uint8: 8, uint16: 16, uint32: 32, uint64: .max, optionalBool: nil,
                optionalString: nil, optionalDouble: -0.0, optionalInt: 3))
        try expectSameEncoding(
            Doubles(values: [1, 1.5, 1e-7, 1.2345678901234568e20, .leastNonzeroMagnitude, 0.1 + 0.2]))
        try expectSameEncoding([[String: [Int]]()], configure: { _ in })
        try expectSameEncoding([[Int]](), configure: { _ in })
        try expectSameEncoding("top-level / string")
        try expectSameEncoding(42)
    }

    @Test("Key, date, data and float strategies write what JSONEncoder writes")
    func honoursStrategies() throws {
        let snake = SnakeCase(userId: 1, firstName: "Ada", _private: true, urlString: "u", nested: ["aB": 1])
        try expectSameEncoding(snake) { $0.keyEncodingStrategy = .convertToSnakeCase }
        try expectSameEncoding(["myURLProperty": 1, "already_snake": 2, "ID": 3]) {
            $0.keyEncodingStrategy = .convertToSnakeCase
        }
        try expectSameEncoding(snake) {
            $0.keyEncodingStrategy = .custom { path in JsonTestKey((path.last?.stringValue ?? "").uppercased()) }
        }
        let values = FoundationValues(
            date: Date(timeIntervalSince1970: 1_700_000_000.25), data: Data([0, 1, 254, 255]),
            url: URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"),
            decimal: Decimal(string: "12345678901234567890.123") ?? 0, optionalDate: nil)
        try expectSameEncoding(values)
        try expectSameEncoding(values) { $0.dateEncodingStrategy = .secondsSince1970 }
        try expectSameEncoding(values) { $0.dateEncodingStrategy = .millisecondsSince1970 }
        try expectSameEncoding(values) { $0.dateEncodingStrategy = .iso8601 }
        try expectSameEncoding(values) {
            $0.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.unkeyedContainer()
                try container.encode(Int(date.timeIntervalSince1970))
            }
        }
        try expectSameEncoding(values) { $0.dateEncodingStrategy = .custom { _, _ in } }
        try expectSameEncoding(values) { $0.dataEncodingStrategy = .deferredToData }
        try expectSameEncoding(values) {
            $0.dataEncodingStrategy = .custom { data, encoder in
                var container = encoder.singleValueContainer()
                try container.encode(data.count)
            }
        }
        let nonConforming = Doubles(values: [.infinity, -.infinity, .nan])
        try expectSameEncoding(nonConforming)
        try expectSameEncoding(nonConforming) {
            $0.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        }
    }

    @Test("A value that encodes nothing fails at the top level and is an empty object inside")
    func encodesNothing() throws {
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        try expectSameEncoding(Nothing())
        try expectSameEncoding([Nothing()])
    }

    @Test("Without sorted keys, members are written in the order they were encoded")
    func keepsEncodingOrder() throws {
        struct Ordered: Encodable {
            let zebra = 1
            let apple = 2
            let mango = [3]
        }
        #expect(
            String(decoding: try TypedJsonEncoder().encode(Ordered()), as: UTF8.self)
                == #"{"zebra":1,"apple":2,"mango":[3]}"#)
    }
}
