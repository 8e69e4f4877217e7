import Foundation

extension Json: Codable {
    /// Decodes any JSON value, so a `Json` property can hold the free-form part of a `Decodable` model.
    ///
    /// Object members arrive in the order the decoder lists its keys, which `JSONDecoder` does not promise;
    /// parse with ``init(parsing:options:)-(String,_)`` to keep the document's order.
    ///
    /// ```swift
    /// struct Event: Decodable { let name: String; let payload: Json }
    /// let event = try JSONDecoder().decode(Event.self, from: data)
    /// ```
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MemberKey.self) {
            var object = JsonObject(capacity: container.allKeys.count)
            for key in container.allKeys {
                object.setValue(try container.decode(Json.self, forKey: key).storedInContainer, forKey: key.stringValue)
            }
            self.init(storage: .object(object))
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [Json] = []
            elements.reserveCapacity(container.count ?? 0)
            while !container.isAtEnd {
                elements.append(try container.decode(Json.self).storedInContainer)
            }
            self.init(storage: .array(elements))
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self.init(storage: .null)
        } else if let value = try? container.decode(Bool.self) {
            self.init(storage: .bool(value))
        } else if let value = try? container.decode(Int64.self) {
            self.init(storage: .integer(value))
        } else if let value = try? container.decode(UInt64.self) {
            self.init(storage: .numberText(String(value)))
        } else if let value = try? container.decode(Double.self) {
            self.init(value)
        } else if let value = try? container.decode(Decimal.self) {
            self.init(storage: .numberText(value.description))
        } else {
            self.init(storage: .string(try container.decode(String.self)))
        }
    }

    /// Encodes the value; integers are encoded exactly, as are numbers beyond `Int64` that fit `UInt64` or
    /// `Decimal` (38 digits). A number beyond those is encoded as a `Double`, which `JSONEncoder` rejects when it
    /// is infinite; ``serializedData(options:)`` writes any number verbatim. A missing value encodes as `null`.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(["id": 9007199254740993] as Json)  // {"id":9007199254740993}
    /// ```
    public func encode(to encoder: any Encoder) throws {
        switch storage {
        case .missing, .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .integer(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .numberText(let text):
            var container = encoder.singleValueContainer()
            if let value = UInt64(text) {
                try container.encode(value)
            } else if let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), value.isFinite {
                try container.encode(value)
            } else {
                try container.encode(Double(text) ?? .infinity)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let object):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in object.entries {
                try container.encode(member.value, forKey: MemberKey(member.key))
            }
        }
    }

    /// A coding key for any object member.
    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(_ key: String) {
            stringValue = key
        }

        init?(stringValue: String) {
            self.stringValue = stringValue
        }

        init?(intValue: Int) {
            nil
        }
    }
}

extension Json {
    /// Decodes a `Decodable` type from this value.
    ///
    /// ```swift
    /// struct User: Decodable { let name: String }
    /// let user = try json.user.decode(User.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder to use, with its strategies for dates, keys and data.
    /// - Returns: The decoded value.
    /// - Throws: The decoder's `DecodingError` when the value does not match the type.
    public func decode<Value: Decodable>(
        _ type: Value.Type = Value.self, decoder: JSONDecoder = JSONDecoder()
    )
        throws -> Value
    {
        try decoder.decodeWithTypedDecoder(type, from: serializedData())
    }
}
