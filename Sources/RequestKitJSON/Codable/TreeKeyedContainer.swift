import Foundation

/// The keyed container of `TreeEncoder`, filling one `EncodedObject`.
struct TreeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: TreeEncoder
    let object: EncodedObject
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }

    private func set(_ value: EncodedValue, _ key: Key) {
        object.set(value, for: encoder.jsonKey(key, path: path))
    }

    mutating func encodeNil(forKey key: Key) { set(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) { set(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) { set(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        set(try encoder.number(value, path: path, key: .key(key)), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        set(try encoder.number(value, path: path, key: .key(key)), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) { set(.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) { set(.unsignedInteger(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) { set(.integer(Int64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) { set(.unsignedInteger(value), key) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        set(try encoder.wrap(value, path: path, key: .key(key)) ?? .object(EncodedObject()), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        let jsonKey = encoder.jsonKey(key, path: path)
        let nested: EncodedObject
        if let position = object.position(of: jsonKey), case .object(let existing) = object.values[position] {
            nested = existing
        } else {
            nested = EncodedObject()
            object.set(.object(nested), for: jsonKey)
        }
        return KeyedEncodingContainer(
            TreeKeyedContainer<NestedKey>(encoder: encoder, object: nested, path: path.appending(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let jsonKey = encoder.jsonKey(key, path: path)
        let nested: EncodedArray
        if let position = object.position(of: jsonKey), case .array(let existing) = object.values[position] {
            nested = existing
        } else {
            nested = EncodedArray()
            object.set(.array(nested), for: jsonKey)
        }
        return TreeUnkeyedContainer(encoder: encoder, array: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder {
        let object = object
        return encoder.superEncoder(path: path.appending(JsonCodingKey.super)) { object.set($0, for: "super") }
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let object = object
        let jsonKey = encoder.jsonKey(key, path: path)
        return encoder.superEncoder(path: path.appending(key)) { object.set($0, for: jsonKey) }
    }
}
