import Foundation

/// The unkeyed container of `DirectEncoder` (a class: its state is the encoder's, and an existential holds it
/// without a box): writes each element into the encoder's output as it is encoded. A
/// container whose array could not be opened (`position` nil) or was closed already marks the encoding for the
/// tree instead.
final class DirectUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: DirectEncoder
    /// The array's slot in the encoder's open containers and its serial number.
    let position: (slot: Int, serial: Int)?
    let path: CodingPathNode

    init(encoder: DirectEncoder, position: (slot: Int, serial: Int)?, path: CodingPathNode) {
        self.encoder = encoder
        self.position = position
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }

    var count: Int {
        guard let position else { return 0 }
        return encoder.count(slot: position.slot, serial: position.serial) ?? 0
    }

    /// Writes the comma before an element, or stops the encoding for the tree.
    private func beginElement() throws {
        guard let position, encoder.prepareWrite(slot: position.slot, serial: position.serial) else {
            throw encoder.fallBack()
        }
    }

    func encodeNil() throws {
        try beginElement()
        encoder.append("null")
    }

    func encode(_ value: Bool) throws {
        try beginElement()
        encoder.append(value ? "true" : "false")
    }

    func encode(_ value: String) throws {
        try beginElement()
        encoder.writeString(value)
    }

    func encode(_ value: Double) throws {
        let text = try encoder.checkedNumber(value, path: path, key: .index(count))
        try beginElement()
        encoder.writeNumber(text, of: value)
    }

    func encode(_ value: Float) throws {
        let text = try encoder.checkedNumber(value, path: path, key: .index(count))
        try beginElement()
        encoder.writeNumber(text, of: value)
    }

    func encode(_ value: Int) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int8) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int16) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int32) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: Int64) throws { try encodeInteger(value) }
    func encode(_ value: UInt) throws { try encodeInteger(UInt64(value)) }
    func encode(_ value: UInt8) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: UInt16) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: UInt32) throws { try encodeInteger(Int64(value)) }
    func encode(_ value: UInt64) throws { try encodeInteger(value) }

    private func encodeInteger(_ value: Int64) throws {
        try beginElement()
        encoder.writeInteger(value)
    }

    private func encodeInteger(_ value: UInt64) throws {
        try beginElement()
        encoder.writeInteger(value)
    }

    func encode<Value: Encodable>(_ value: Value) throws {
        let index = count
        try beginElement()
        try encoder.encodeValue(value, path: path, key: .index(index))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        let index = count
        return KeyedEncodingContainer(
            DirectKeyedContainer<NestedKey>(
                encoder: encoder, position: openNested(isObject: true), path: path.appending(index: index)))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let index = count
        return DirectUnkeyedContainer(
            encoder: encoder, position: openNested(isObject: false), path: path.appending(index: index))
    }

    /// Opens a nested object or array as the next element; nil (and the tree) when that is not possible.
    private func openNested(isObject: Bool) -> (slot: Int, serial: Int)? {
        guard let position, encoder.prepareWrite(slot: position.slot, serial: position.serial) else {
            encoder.markNeedsTree()
            return nil
        }
        return encoder.openContainer(isObject: isObject)
    }

    func superEncoder() -> any Encoder {
        encoder.markNeedsTree()
        return TreeEncoder(options: encoder.options, path: path.appending(index: count))
    }
}
