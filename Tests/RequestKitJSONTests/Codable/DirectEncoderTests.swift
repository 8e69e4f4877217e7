import Foundation
import Testing

@testable import RequestKitJSON

private let benchmarkDocuments = sharedDataFolder.appendingPathComponent("json-benchmark")

/// Encodes `value` in one pass (`DirectEncoder`) and through the tree (`TreeEncoder`), and expects the same bytes,
/// or the direct pass to hand over to the tree (`nil`) when `needsTree` says so.
private func expectDirectMatchesTree<Value: Encodable>(
    _ value: Value, needsTree: Bool = false, configure: (inout TypedJsonEncoder) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    for formatting: JSONEncoder.OutputFormatting in [[], [.withoutEscapingSlashes]] {
        var encoder = TypedJsonEncoder()
        configure(&encoder)
        encoder.outputFormatting = formatting
        let tree = try encoder.treeEncodedBytes(value)
        let direct = encoder.directlyEncodedBytes(value)
        if needsTree {
            #expect(direct == nil, "\(formatting)", sourceLocation: sourceLocation)
        } else {
            let bytes = try #require(direct, "\(formatting)", sourceLocation: sourceLocation)
            #expect(
                String(decoding: bytes, as: UTF8.self) == String(decoding: tree, as: UTF8.self), "\(formatting)",
                sourceLocation: sourceLocation)
        }
        #expect(try encoder.encodedBytes(value) == tree, "\(formatting)", sourceLocation: sourceLocation)
    }
}

/// Encodes a key twice in one object: `JSONEncoder` keeps the second value in the first place.
private struct RepeatedKey: Encodable {
    enum CodingKeys: String, CodingKey {
        case a, b
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .a)
        try container.encode(2, forKey: .b)
        try container.encode(3, forKey: .a)
    }
}

/// Goes back to a nested container after writing a sibling member, which closed it.
private struct ReenteredNestedContainer: Encodable {
    enum CodingKeys: String, CodingKey {
        case inner, after
    }

    enum InnerKeys: String, CodingKey {
        case x, y
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        var inner = container.nestedContainer(keyedBy: InnerKeys.self, forKey: .inner)
        try inner.encode(1, forKey: .x)
        try container.encode(true, forKey: .after)
        try inner.encode(2, forKey: .y)
    }
}

/// Nested containers of both kinds, each filled before its parent goes on.
private struct NestedInOrder: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, point, list, last
    }

    enum PointKeys: String, CodingKey {
        case x, y
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(7, forKey: .id)
        var point = container.nestedContainer(keyedBy: PointKeys.self, forKey: .point)
        try point.encode(1.5, forKey: .x)
        try point.encodeNil(forKey: .y)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encode("a/b")
        var pair = list.nestedUnkeyedContainer()
        try pair.encode(UInt8(1))
        try pair.encode(Int64.min)
        var object = list.nestedContainer(keyedBy: PointKeys.self)
        try object.encode(false, forKey: .x)
        try list.encode(Float(0.1))
        _ = container.nestedContainer(keyedBy: PointKeys.self, forKey: .last)
    }
}

/// Two keys of the same length whose first and last eight bytes agree (found by the fuzzer): their fingerprints
/// are equal, so the direct pass cannot tell them apart without more work and hands over to the tree.
private struct LookAlikeKeys: Encodable {
    enum CodingKeys: String, CodingKey {
        case first = "abcdefgh-1-ijklmnop"
        case second = "abcdefgh-2-ijklmnop"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .first)
        try container.encode(2, forKey: .second)
    }
}

/// Encodes one value twice through its single value container.
private struct TwoSingleValues: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(1)
        try container.encode(2)
    }
}

/// Catches the error of a member that cannot be encoded and goes on without it.
private struct SwallowsError: Encodable {
    enum CodingKeys: String, CodingKey {
        case bad, good
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try? container.encode(Doubles(values: [.nan]), forKey: .bad)
        try container.encode(1, forKey: .good)
    }
}

@Suite("Encoding in one pass")
struct DirectEncoderTests {
    @Test(
        "The benchmark models are written in one pass, byte for byte as the tree writes them",
        .enabled(if: FileManager.default.fileExists(atPath: benchmarkDocuments.path), "../shared/data is absent"))
    func writesBenchmarkModels() async throws {
        // Each step takes a while in a debug build; yielding between them lets the tests running alongside go on.
        let twitter = try JSONDecoder().decode(
            TwitterSearch.self, from: Data(contentsOf: benchmarkDocuments.appendingPathComponent("twitter.json")))
        await Task.yield()
        try expectDirectMatchesTree(twitter)
        await Task.yield()
        try expectDirectMatchesTree(twitter) { $0.keyEncodingStrategy = .convertToSnakeCase }
        await Task.yield()
        let catalog = try JSONDecoder().decode(
            Catalog.self, from: Data(contentsOf: benchmarkDocuments.appendingPathComponent("citm_catalog.json")))
        await Task.yield()
        try expectDirectMatchesTree(catalog)
    }

    @Test("Scalars, optionals, enums, dictionaries, shared containers and nested containers are written in one pass")
    func writesModels() throws {
        let decoder = JSONDecoder()
        try expectDirectMatchesTree(
            try decoder.decode(NestedOptionals.self, from: Data(#"{"a":1,"b":["x",null],"c":{"k":null}}"#.utf8)))
        try expectDirectMatchesTree(Shape.labelled("a/b \"q\" \n\u{1}", .rectangle(width: 2, height: 3)))
        try expectDirectMatchesTree([Shape.circle(radius: 0.1), .empty])
        try expectDirectMatchesTree(NonStringKeys(byInt: [1: "a", -20: "b"], byUInt8: [255: true], byEnum: [.red: 1]))
        try expectDirectMatchesTree(try decoder.decode(Cat.self, from: Data(#"{"lives":9,"name":"Tom"}"#.utf8)))
        try expectDirectMatchesTree(
            Scalars(
                bool: true, string: "é/\t", double: 1e300, float: 0.1, int: .min, int8: -8, int16: 16, int32: 32,
                int64: .max, uint: .max, uint8: 8, uint16: 16, uint32: 32, uint64: .max, optionalBool: nil,
                optionalString: nil, optionalDouble: -0.0, optionalInt: 3))
        try expectDirectMatchesTree(Doubles(values: [1, 1.5, 1e-7, 1.2345678901234568e20, .leastNonzeroMagnitude]))
        try expectDirectMatchesTree(NestedInOrder())
        try expectDirectMatchesTree([[String: [Int]]()])
        try expectDirectMatchesTree("top-level / string")
        try expectDirectMatchesTree(42)
    }

    @Test("Foundation's types and key strategies are written in one pass as the tree writes them")
    func writesStrategies() throws {
        let values = FoundationValues(
            date: Date(timeIntervalSince1970: 1_700_000_000.25), data: Data([0, 1, 254, 255]),
            url: URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"),
            decimal: Decimal(string: "12345678901234567890.123") ?? 0, optionalDate: nil)
        try expectDirectMatchesTree(values)
        try expectDirectMatchesTree(values) { $0.dateEncodingStrategy = .iso8601 }
        try expectDirectMatchesTree(values) { $0.dateEncodingStrategy = .custom { _, _ in } }
        let snake = SnakeCase(userId: 1, firstName: "Ada", _private: true, urlString: "u", nested: ["aB": 1])
        try expectDirectMatchesTree(snake) { $0.keyEncodingStrategy = .convertToSnakeCase }
        try expectDirectMatchesTree(snake) {
            $0.keyEncodingStrategy = .custom { path in JsonTestKey("\(path.count)-\(path.last?.stringValue ?? "")") }
        }
        try expectDirectMatchesTree(Doubles(values: [.infinity, -.infinity, .nan])) {
            $0.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        }
    }

    @Test(
        "Repeated or look-alike keys, reopened containers, super encoders, two single values and caught errors go to the tree"
    )
    func handsOverToTheTree() throws {
        try expectDirectMatchesTree(RepeatedKey(), needsTree: true)
        #expect(String(decoding: try TypedJsonEncoder().encode(RepeatedKey()), as: UTF8.self) == #"{"a":3,"b":2}"#)
        try expectDirectMatchesTree(ReenteredNestedContainer(), needsTree: true)
        #expect(
            String(decoding: try TypedJsonEncoder().encode(ReenteredNestedContainer()), as: UTF8.self)
                == #"{"inner":{"x":1,"y":2},"after":true}"#)
        let dog = try JSONDecoder().decode(Dog.self, from: Data(#"{"breed":"corgi","super":{"name":"Rex"}}"#.utf8))
        try expectDirectMatchesTree(dog, needsTree: true)
        #expect(
            String(decoding: try TypedJsonEncoder().encode(dog), as: UTF8.self)
                == #"{"breed":"corgi","super":{"name":"Rex"}}"#)
        try expectDirectMatchesTree(TwoSingleValues(), needsTree: true)
        #expect(String(decoding: try TypedJsonEncoder().encode(TwoSingleValues()), as: UTF8.self) == "2")
        try expectDirectMatchesTree(LookAlikeKeys(), needsTree: true)
        #expect(
            String(decoding: try TypedJsonEncoder().encode(LookAlikeKeys()), as: UTF8.self)
                == #"{"abcdefgh-1-ijklmnop":1,"abcdefgh-2-ijklmnop":2}"#)
        try expectDirectMatchesTree(SwallowsError(), needsTree: true)
        #expect(String(decoding: try TypedJsonEncoder().encode(SwallowsError()), as: UTF8.self) == #"{"good":1}"#)
    }

    @Test("Errors carry the coding path of the value, nested containers included")
    func reportsPaths() throws {
        struct Wrapper: Encodable {
            let items: [NestedDoubles]
        }
        struct NestedDoubles: Encodable {
            let doubles: Doubles
        }
        let value = Wrapper(items: [
            NestedDoubles(doubles: Doubles(values: [1])), .init(doubles: .init(values: [2, .nan])),
        ])
        #expect {
            _ = try TypedJsonEncoder().encode(value)
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                == ["items", "[1]", "doubles", "values", "[1]"]
        }
        #expect(throws: EncodingError.self) { _ = try TypedJsonEncoder().encode(Double.infinity) }
    }
}
