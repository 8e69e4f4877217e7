import Foundation

/// The keyed container of `DirectEncoder` (a class, so that `KeyedEncodingContainer`'s box copies one reference
/// for each call): writes `"key":value` into the encoder's output as each member is
/// encoded. A container whose object could not be opened (`position` nil) or was closed already marks the
/// encoding for the tree instead.
final class DirectKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: DirectEncoder
    /// The object's slot in the encoder's open containers and its serial number.
    let position: (slot: Int, serial: Int)?
    let path: CodingPathNode

    init(encoder: DirectEncoder, position: (slot: Int, serial: Int)?, path: CodingPathNode) {
        self.encoder = encoder
        self.position = position
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    /// Writes `,"key":` before a member's value, or stops the encoding for the tree.
    private func beginMember(_ key: Key) throws {
        guard let position, encoder.prepareWrite(slot: position.slot, serial: position.serial),
            encoder.writeKey(encoder.jsonKey(key, path: path), slot: position.slot)
        else {
            throw encoder.fallBack()
        }
    }

    func encodeNil(forKey key: Key) throws {
        try beginMember(key)
        encoder.append("null")
    }

    func encode(_ value: Bool, forKey key: Key) throws {
        try beginMember(key)
        encoder.append(value ? "true" : "false")
    }

    func encode(_ value: String, forKey key: Key) throws {
        try beginMember(key)
        encoder.writeString(value)
    }

    func encode(_ value: Double, forKey key: Key) throws {
        let text = try encoder.checkedNumber(value, path: path, key: .key(key))
        try beginMember(key)
        encoder.writeNumber(text, of: value)
    }

    func encode(_ value: Float, forKey key: Key) throws {
        let text = try encoder.checkedNumber(value, path: path, key: .key(key))
        try beginMember(key)
        encoder.writeNumber(text, of: value)
    }

    func encode(_ value: Int, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: Int8, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: Int16, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: Int32, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: Int64, forKey key: Key) throws { try encodeInteger(value, key) }
    func encode(_ value: UInt, forKey key: Key) throws { try encodeInteger(UInt64(value), key) }
    func encode(_ value: UInt8, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: UInt16, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: UInt32, forKey key: Key) throws { try encodeInteger(Int64(value), key) }
    func encode(_ value: UInt64, forKey key: Key) throws { try encodeInteger(value, key) }

    private func encodeInteger(_ value: Int64, _ key: Key) throws {
        try beginMember(key)
        encoder.writeInteger(value)
    }

    private func encodeInteger(_ value: UInt64, _ key: Key) throws {
        try beginMember(key)
        encoder.writeInteger(value)
    }

    func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try beginMember(key)
        try encoder.encodeValue(value, path: path, key: .key(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(
            DirectKeyedContainer<NestedKey>(
                encoder: encoder, position: openNested(isObject: true, key), path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DirectUnkeyedContainer(
            encoder: encoder, position: openNested(isObject: false, key), path: path.appending(key))
    }

    /// Writes `"key":` and opens a nested object or array; nil (and the tree) when that is not possible.
    private func openNested(isObject: Bool, _ key: Key) -> (slot: Int, serial: Int)? {
        guard let position, encoder.prepareWrite(slot: position.slot, serial: position.serial),
            encoder.writeKey(encoder.jsonKey(key, path: path), slot: position.slot)
        else {
            encoder.markNeedsTree()
            return nil
        }
        return encoder.openContainer(isObject: isObject)
    }

    func superEncoder() -> any Encoder {
        encoder.markNeedsTree()
        return TreeEncoder(options: encoder.options, path: path.appending(JsonCodingKey.super))
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        encoder.markNeedsTree()
        return TreeEncoder(options: encoder.options, path: path.appending(key))
    }
}
