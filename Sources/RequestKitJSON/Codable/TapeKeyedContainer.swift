import Foundation

/// The keyed container over one object of a `JsonTape`.
///
/// A class, so that `KeyedDecodingContainer`'s box, which copies its container for every call, copies one
/// reference rather than a decoder, a path and a key table. Scalars are read without building their coding path
/// or key; both are built only for an error.
///
/// With the default key strategy and an object whose keys are plain, distinct and fewer than 64, a lookup
/// compares the coding key's UTF-8 with the raw key bytes, starting where the previous lookup in this object
/// ended; other objects go through a `KeyTable`.
final class TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    let object: Int
    let path: CodingPathNode
    let table: KeyTable?

    init(decoder: TapeDecoder, object: Int, path: CodingPathNode) throws {
        guard decoder.tape.nodes[object].kind == .object else {
            throw decoder.mismatch([String: Any].self, at: object, path: path, key: .none)
        }
        self.decoder = decoder
        self.object = object
        self.path = path
        table =
            decoder.usesDefaultKeys && !decoder.tape.nodes[object].needsKeyTable
            ? nil : KeyTable(object: object, decoder: decoder, path: path)
    }

    var codingPath: [any CodingKey] { path.keys }

    var allKeys: [Key] {
        if let table {
            return table.entries.compactMap { Key(stringValue: $0.key) }
        }
        let tape = decoder.tape
        var keys: [Key] = []
        var keyIndex = object + 1
        for _ in 0..<tape.nodes[object].first {
            if let key = Key(stringValue: tape.string(at: keyIndex)) {
                keys.append(key)
            }
            keyIndex = tape.next(after: keyIndex + 1)
        }
        return keys
    }

    /// The node of the value for `key`, if the object has it.
    @inline(__always)
    func valueIndex(for key: Key) -> Int? {
        if let table {
            return table.value(for: key.stringValue)
        }
        let wanted = key.stringValue
        if let found = wanted.utf8.withContiguousStorageIfAvailable({ valueIndex(forKeyBytes: $0) }) {
            return found
        }
        return Array(wanted.utf8).withUnsafeBufferPointer { valueIndex(forKeyBytes: $0) }
    }

    /// The node of the value whose raw key is `wanted`: members are compared from where the last lookup ended, by
    /// length first, so that members read in document order are found at the first comparison and a missing
    /// key costs a length comparison per member.
    private func valueIndex(forKeyBytes wanted: UnsafeBufferPointer<UInt8>) -> Int? {
        let tape = decoder.tape
        let objectNode = tape.nodes[object]
        let count = objectNode.first
        let firstKey = object + 1
        var keyIndex = objectNode.hint == 0 ? firstKey : object + Int(objectNode.hint)
        for _ in 0..<count {
            if keyIndex >= objectNode.second {
                keyIndex = firstKey
            }
            let keyNode = tape.nodes[keyIndex]
            let valueIndex = keyIndex + 1
            let nextKey = tape.next(after: valueIndex)
            if tape.text(of: keyNode, equals: wanted) {
                tape.nodes[object].hint = UInt32(truncatingIfNeeded: nextKey - object)
                return valueIndex
            }
            keyIndex = nextKey
        }
        return nil
    }

    private func require(_ key: Key) throws -> Int {
        guard let index = valueIndex(for: key) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: path.keys,
                    debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return index
    }

    /// The value's node, or nil when the key is missing or the value is null.
    private func present(_ key: Key) -> Int? {
        guard let index = valueIndex(for: key), decoder.tape.nodes[index].kind != .null else { return nil }
        return index
    }

    func contains(_ key: Key) -> Bool {
        valueIndex(for: key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.tape.nodes[try require(key)].kind == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let index = try require(key)
        do {
            return try decoder.boolValue(at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let index = try require(key)
        do {
            return try decoder.stringValue(at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let index = try require(key)
        do {
            return try decoder.floatingPointValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        let index = try require(key)
        do {
            return try decoder.floatingPointValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        let index = try require(key)
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decoder.unwrap(type, at: try require(key), path: path, key: .key(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.boolValue(at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.stringValue(at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.floatingPointValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.floatingPointValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        guard let index = present(key) else { return nil }
        do {
            return try decoder.integerValue(type, at: index)
        } catch {
            throw failure(error, type, at: index, key: key)
        }
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let index = present(key) else { return nil }
        return try decoder.unwrap(type, at: index, path: path, key: .key(key))
    }

    /// The error for a scalar of `key` that could not be read.
    private func failure(
        _ failure: TapeDecoder.ScalarFailure, _ type: Any.Type, at index: Int, key: Key
    ) -> DecodingError {
        decoder.decodingError(failure, type, at: index, path: path, key: .key(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let index = try require(key)
        return KeyedDecodingContainer(
            try TapeKeyedContainer<NestedKey>(decoder: decoder, object: index, path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let index = try require(key)
        return try TapeUnkeyedContainer(decoder: decoder, array: index, path: path.appending(key))
    }

    func superDecoder() throws -> any Decoder {
        superDecoder(key: JsonCodingKey.super, valueIndex: valueIndex(for: JsonCodingKey.super))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        superDecoder(key: key, valueIndex: valueIndex(for: key))
    }

    /// A decoder for the value of `key`, or for null when the object has no such key, as `JSONDecoder` does.
    private func superDecoder(key: any CodingKey, valueIndex: Int?) -> any Decoder {
        decoder.superDecoder(at: valueIndex ?? decoder.tape.nullNode, path: path.appending(key))
    }

    /// `valueIndex(for:)` for a key of another type (the `super` key).
    private func valueIndex(for key: JsonCodingKey) -> Int? {
        if let table {
            return table.value(for: key.stringValue)
        }
        let tape = decoder.tape
        var keyIndex = object + 1
        for _ in 0..<tape.nodes[object].first {
            if tape.string(at: keyIndex) == key.stringValue {
                return keyIndex + 1
            }
            keyIndex = tape.next(after: keyIndex + 1)
        }
        return nil
    }
}
