import Foundation

/// The unkeyed container of `TreeEncoder`, filling one `EncodedArray`.
struct TreeUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: TreeEncoder
    let array: EncodedArray
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { array.elements.count }

    private func append(_ value: EncodedValue) {
        array.elements.append(value)
    }

    mutating func encodeNil() { append(.null) }
    mutating func encode(_ value: Bool) { append(.bool(value)) }
    mutating func encode(_ value: String) { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try encoder.number(value, path: path, key: .index(count))) }
    mutating func encode(_ value: Float) throws { append(try encoder.number(value, path: path, key: .index(count))) }
    mutating func encode(_ value: Int) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int8) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int16) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int32) { append(.integer(Int64(value))) }
    mutating func encode(_ value: Int64) { append(.integer(value)) }
    mutating func encode(_ value: UInt) { append(.unsignedInteger(UInt64(value))) }
    mutating func encode(_ value: UInt8) { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt16) { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt32) { append(.integer(Int64(value))) }
    mutating func encode(_ value: UInt64) { append(.unsignedInteger(value)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        append(try encoder.wrap(value, path: path, key: .index(count)) ?? .object(EncodedObject()))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    )
        -> KeyedEncodingContainer<NestedKey>
    {
        let nested = EncodedObject()
        let nestedPath = path.appending(index: count)
        append(.object(nested))
        return KeyedEncodingContainer(TreeKeyedContainer<NestedKey>(encoder: encoder, object: nested, path: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = EncodedArray()
        let nestedPath = path.appending(index: count)
        append(.array(nested))
        return TreeUnkeyedContainer(encoder: encoder, array: nested, path: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let array = array
        let position = count
        append(.null)
        return encoder.superEncoder(path: path.appending(index: position)) { array.elements[position] = $0 }
    }
}
