import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel

/// Adds a query item per property of an `Encodable` value, encoded with the request's JSON encoder: a
/// ``Client``'s configured encoder (its key and date strategies), or a plain `JSONEncoder` on its own.
///
/// Items are sorted by name. Strings, numbers and Booleans become values; arrays repeat the name; nil
/// properties are left out. A nested object is reported when the request is built.
///
/// ```swift
/// struct Search: Encodable, Sendable {
///     let tag: String
///     let limit: Int
///     let since: Date?
///     let ids: [Int]
/// }
/// QueryParameters(Search(tag: "cat", limit: 10, since: nil, ids: [1, 2]))  // ids=1&ids=2&limit=10&tag=cat
/// ```
public struct QueryParameters: RequestComponent {
    private let encode: @Sendable (JSONEncoder) -> Result<Data, any Error>
    private let typeName: String

    /// Adds the properties of `value`.
    ///
    /// ```swift
    /// QueryParameters(filters)
    /// ```
    public init<Value: Encodable & Sendable>(_ value: Value) {
        encode = { encoder in Result { try encoder.encode(value) } }
        typeName = String(describing: Value.self)
    }

    public func apply(to parts: inout RequestParts) {
        let data: Data
        switch encode(parts[option: JSONEncoderKey.self] ?? JSONEncoder()) {
        case .success(let encoded): data = encoded
        case .failure(let error):
            parts.report(RequestProblem(.invalidComponent, "the \(typeName) query could not be encoded: \(error)"))
            return
        }
        guard let json = try? Json(parsing: data), let entries = json.entries else {
            parts.report(RequestProblem(.invalidComponent, "the \(typeName) query does not encode as an object"))
            return
        }
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
            let elements = value.array ?? [value]
            for element in elements {
                guard let text = Self.text(of: element) else {
                    if !element.isNull {
                        parts.report(
                            RequestProblem(
                                .invalidComponent, "the \(typeName) query property \"\(name)\" is not a plain value"))
                    }
                    continue
                }
                parts.queryItems.append(QueryItem(name: name, value: text))
            }
        }
    }

    /// The text of a scalar, or nil for null, arrays and objects.
    private static func text(of value: Json) -> String? {
        switch value.storage {
        case .string(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .integer(let number): String(number)
        case .double(let number): String(number)
        case .numberText(let text): text
        default: nil
        }
    }
}
