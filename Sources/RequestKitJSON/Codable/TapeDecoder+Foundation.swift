import Foundation

/// `[String: Value]`, which `JSONDecoder` decodes with its keys as they are even under a key strategy.
protocol StringKeyedDictionary {
    static func decodeKeepingKeys(with decoder: TapeDecoder, at index: Int, path: CodingPathNode) throws -> Any
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static func decodeKeepingKeys(with decoder: TapeDecoder, at index: Int, path: CodingPathNode) throws -> Any {
        let tape = decoder.tape
        var result: [String: Value] = [:]
        result.reserveCapacity(tape.nodes[index].first)
        var keyIndex = index + 1
        for _ in 0..<tape.nodes[index].first {
            let key = tape.string(at: keyIndex)
            let value = try decoder.unwrap(
                Value.self, at: keyIndex + 1, path: path, key: .key(JsonCodingKey(stringValue: key)))
            if result[key] == nil {
                result[key] = value
            }
            keyIndex = tape.next(after: keyIndex + 1)
        }
        return result
    }
}

extension TapeDecoder {
    /// Decodes the Foundation types that `JSONDecoder` treats on its own: `Date` and `Data` by their strategies,
    /// `URL` from a string, `Decimal` from a number's exact text, and `[String: Value]` without key conversion.
    func foundationValue<Value>(
        _ type: Value.Type, at index: Int, path: CodingPathNode, key: CodingPathNode.Component
    )
        throws -> Any
    {
        let node = tape.nodes[index]
        if node.kind == .null {
            throw mismatch(
                Value.self == Decimal.self || Value.self == Date.self || Value.self == Data.self
                    || Value.self == URL.self ? Value.self : [String: Any].self, at: index, path: path, key: key)
        }
        if Value.self == Date.self {
            return try date(at: index, path: path, key: key)
        }
        if Value.self == Data.self {
            return try data(at: index, path: path, key: key)
        }
        if Value.self == URL.self {
            let string = try self.string(at: index, path: path, key: key)
            guard let url = URL(string: string) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys(appending: key), debugDescription: "Invalid URL string."))
            }
            return url
        }
        if Value.self == Decimal.self {
            guard node.kind == .integer || node.kind == .decimal else {
                throw DecodingError.typeMismatch(
                    Decimal.self,
                    DecodingError.Context(
                        codingPath: path.keys(appending: key),
                        debugDescription: "Expected to decode Decimal but found \(Self.describe(node.kind)) instead."))
            }
            let text = String(decoding: tape.text(of: node), as: UTF8.self)
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), decimal.isFinite
            else {
                throw unrepresentable(Decimal.self, at: index, path: path, key: key)
            }
            return decimal
        }
        guard node.kind == .object, let dictionary = Value.self as? any StringKeyedDictionary.Type else {
            throw mismatch([String: Any].self, at: index, path: path, key: key)
        }
        return try dictionary.decodeKeepingKeys(with: self, at: index, path: path.appending(key))
    }

    private func date(at index: Int, path: CodingPathNode, key: CodingPathNode.Component) throws -> Date {
        let strategy = options.dateDecodingStrategy
        if case .secondsSince1970 = strategy {
            return Date(timeIntervalSince1970: try floatingPoint(Double.self, at: index, path: path, key: key))
        }
        if case .millisecondsSince1970 = strategy {
            return Date(timeIntervalSince1970: try floatingPoint(Double.self, at: index, path: path, key: key) / 1000)
        }
        if case .iso8601 = strategy {
            let string = try self.string(at: index, path: path, key: key)
            guard let date = try? Date.ISO8601FormatStyle().parse(string) else {
                // `JSONDecoder` reports this one at the path of the enclosing value.
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: self.path.keys, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date
        }
        if case .custom(let closure) = strategy {
            return try with(node: index, path: path.appending(key)) { try closure(self) }
        }
        #if canImport(Darwin)
        if case .formatted(let formatter) = strategy {
            let string = try self.string(at: index, path: path, key: key)
            guard let date = formatter.date(from: string) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys(appending: key),
                        debugDescription: "Date string does not match format expected by formatter."))
            }
            return date
        }
        #endif
        return try with(node: index, path: path.appending(key)) { try Date(from: self) }
    }

    private func data(at index: Int, path: CodingPathNode, key: CodingPathNode.Component) throws -> Data {
        switch options.dataDecodingStrategy {
        case .base64:
            let kind = tape.nodes[index].kind
            guard kind == .string || kind == .escapedString else {
                throw mismatch(String.self, at: index, path: path, key: key)
            }
            guard let data = Data(base64Encoded: tape.string(at: index)) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: path.keys(appending: key), debugDescription: "Encountered Data is not valid Base64."
                    ))
            }
            return data
        case .custom(let closure):
            return try with(node: index, path: path.appending(key)) { try closure(self) }
        case .deferredToData:
            return try with(node: index, path: path.appending(key)) { try Data(from: self) }
        @unknown default:
            return try with(node: index, path: path.appending(key)) { try Data(from: self) }
        }
    }
}

extension TypedJsonDecoder {
    /// Whether this decoder reads dates as `strategy` says; a strategy added to Foundation later is not.
    static func canDecode(_ strategy: JSONDecoder.DateDecodingStrategy) -> Bool {
        switch strategy {
        case .deferredToDate, .secondsSince1970, .millisecondsSince1970, .iso8601, .custom: true
        #if canImport(Darwin)
        case .formatted: true
        @unknown default: false
        #endif
        }
    }
}
