import Foundation
import RequestKitJSON
import Testing

/// What a decoding gave: the value re-encoded by `JSONEncoder` with sorted keys (so that two results compare
/// by their content), or the error's kind and coding path.
enum DecodingOutcome: Equatable, CustomStringConvertible {
    case value(String)
    case failure(kind: String, path: [String])

    init<Value: Encodable>(_ body: () throws -> Value) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
            encoder.dateEncodingStrategy = .secondsSince1970
            self = .value(String(decoding: try encoder.encode([try body()]), as: UTF8.self))
        } catch let error as DecodingError {
            self = .failure(kind: Self.kind(of: error), path: Self.path(of: error))
        } catch {
            self = .failure(kind: "\(type(of: error))", path: [])
        }
    }

    static func kind(of error: DecodingError) -> String {
        switch error {
        case .typeMismatch: "typeMismatch"
        case .valueNotFound: "valueNotFound"
        case .keyNotFound(let key, _): "keyNotFound(\(key.stringValue))"
        case .dataCorrupted: "dataCorrupted"
        @unknown default: "unknown"
        }
    }

    static func path(of error: DecodingError) -> [String] {
        let context: DecodingError.Context? =
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
                .dataCorrupted(let context):
                context
            @unknown default: nil
            }
        return context?.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue } ?? []
    }

    var description: String {
        switch self {
        case .value(let text): text.count > 300 ? String(text.prefix(300)) + "…" : text
        case .failure(let kind, let path): "\(kind) at \(path)"
        }
    }
}

/// Decodes `data` as `type` with `JSONDecoder` and with `TypedJsonDecoder` holding the same strategies, and
/// expects the same value or the same kind of error at the same coding path.
func expectSameDecoding<Value: Codable>(
    _ type: Value.Type, _ data: Data, configure: (JSONDecoder) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let foundation = JSONDecoder()
    configure(foundation)
    let typed = try #require(TypedJsonDecoder(matching: foundation), sourceLocation: sourceLocation)
    let expected = DecodingOutcome { try foundation.decode(type, from: data) }
    let actual = DecodingOutcome { try typed.decode(type, from: data) }
    #expect(
        actual == expected, "\(String(decoding: data.prefix(200), as: UTF8.self))", sourceLocation: sourceLocation)
}

/// The same for a JSON text.
func expectSameDecoding<Value: Codable>(
    _ type: Value.Type, _ text: String, configure: (JSONDecoder) -> Void = { _ in },
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    try expectSameDecoding(type, Data(text.utf8), configure: configure, sourceLocation: sourceLocation)
}
