import Foundation

/// `[String: Value]`, whose keys `JSONEncoder` writes as they are even under a key strategy.
protocol StringKeyedEncodableDictionary {
    func encodeKeepingKeys(with encoder: TreeEncoder, path: CodingPathNode) throws -> EncodedValue
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    func encodeKeepingKeys(with encoder: TreeEncoder, path: CodingPathNode) throws -> EncodedValue {
        let object = EncodedObject()
        for (key, value) in self {
            let encoded = try encoder.wrap(value, path: path, key: .key(JsonCodingKey(stringValue: key)))
            object.set(encoded ?? .object(EncodedObject()), for: key)
        }
        return .object(object)
    }
}

extension TreeEncoder {
    /// Foundation's types that `JSONEncoder` writes on its own: `Date` and `Data` by their strategies, `URL` as
    /// its absolute string, `Decimal` as its exact digits, and `[String: Value]` without key conversion.
    func foundationValue<Value: Encodable>(
        _ value: Value, path: CodingPathNode, key: CodingPathNode.Component
    )
        throws -> EncodedValue?
    {
        if let date = value as? Date {
            return try encode(date, path: path, key: key)
        }
        if let data = value as? Data {
            switch options.dataEncodingStrategy {
            case .base64:
                return .string(data.base64EncodedString())
            case .custom(let closure):
                return try encodeNested(path: path.appending(key)) { try closure(data, self) }
                    ?? .object(EncodedObject())
            default:
                return try encodeNested(path: path.appending(key)) { try data.encode(to: self) }
            }
        }
        if let url = value as? URL {
            return .string(url.absoluteString)
        }
        if let decimal = value as? Decimal {
            return .numberText(decimal.description)
        }
        if let dictionary = value as? any StringKeyedEncodableDictionary {
            return try dictionary.encodeKeepingKeys(with: self, path: path.appending(key))
        }
        return try encodeNested(path: path.appending(key)) { try value.encode(to: self) }
    }

    private func encode(_ date: Date, path: CodingPathNode, key: CodingPathNode.Component) throws -> EncodedValue? {
        let strategy = options.dateEncodingStrategy
        if case .secondsSince1970 = strategy {
            return try number(date.timeIntervalSince1970, path: path, key: key)
        }
        if case .millisecondsSince1970 = strategy {
            return try number(1000.0 * date.timeIntervalSince1970, path: path, key: key)
        }
        if case .iso8601 = strategy {
            return .string(date.formatted(.iso8601))
        }
        if case .custom(let closure) = strategy {
            return try encodeNested(path: path.appending(key)) { try closure(date, self) } ?? .object(EncodedObject())
        }
        #if canImport(Darwin)
        if case .formatted(let formatter) = strategy {
            return .string(formatter.string(from: date))
        }
        #endif
        return try encodeNested(path: path.appending(key)) { try date.encode(to: self) }
    }
}
