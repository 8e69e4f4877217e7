import Foundation

/// The unkeyed container over one array of a `JsonTape`: a cursor on its elements.
///
/// A class, so that the `any UnkeyedDecodingContainer` that holds it needs no box of its own.
final class TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let path: CodingPathNode
    let count: Int?
    private(set) var currentIndex = 0
    /// The node of the element at `currentIndex`.
    private var element: Int

    init(decoder: TapeDecoder, array: Int, path: CodingPathNode) throws {
        guard decoder.tape.nodes[array].kind == .array else {
            throw decoder.mismatch([Any].self, at: array, path: path, key: .none)
        }
        self.decoder = decoder
        self.path = path
        count = decoder.tape.nodes[array].first
        element = array + 1
    }

    var codingPath: [any CodingKey] { path.keys }

    var isAtEnd: Bool { currentIndex >= count ?? 0 }

    /// The next element's node; `valueNotFound` at the end, as `JSONDecoder` reports it.
    private func next(_ type: Any.Type, _ message: String = "Unkeyed container is at end.") throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(codingPath: path.keys(appending: .index(currentIndex)), debugDescription: message)
            )
        }
        return element
    }

    private func advance() {
        if !isAtEnd {
            element = decoder.tape.next(after: element)
        }
        currentIndex += 1
    }

    func decodeNil() throws -> Bool {
        guard decoder.tape.nodes[try next(Never.self)].kind == .null else { return false }
        advance()
        return true
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        let value = try decoder.bool(at: try next(type), path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func decode(_ type: String.Type) throws -> String {
        let value = try decoder.string(at: try next(type), path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func decode(_ type: Double.Type) throws -> Double {
        let value = try decoder.floatingPoint(type, at: try next(type), path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func decode(_ type: Float.Type) throws -> Float {
        let value = try decoder.floatingPoint(type, at: try next(type), path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func decode(_ type: Int.Type) throws -> Int {
        try decodeInteger(type)
    }

    func decode(_ type: Int8.Type) throws -> Int8 {
        try decodeInteger(type)
    }

    func decode(_ type: Int16.Type) throws -> Int16 {
        try decodeInteger(type)
    }

    func decode(_ type: Int32.Type) throws -> Int32 {
        try decodeInteger(type)
    }

    func decode(_ type: Int64.Type) throws -> Int64 {
        try decodeInteger(type)
    }

    func decode(_ type: UInt.Type) throws -> UInt {
        try decodeInteger(type)
    }

    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try decodeInteger(type)
    }

    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try decodeInteger(type)
    }

    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try decodeInteger(type)
    }

    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try decodeInteger(type)
    }

    private func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        let value = try decoder.integer(type, at: try next(type), path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let value = try decoder.unwrap(type, at: try next(type), path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type) throws -> Value? {
        // At the end this answers nil, and still moves the index on, as `JSONDecoder` does.
        guard !isAtEnd, decoder.tape.nodes[element].kind != .null else {
            advance()
            return nil
        }
        let value = try decoder.unwrap(type, at: element, path: path, key: .index(currentIndex))
        advance()
        return value
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let index = try next(KeyedDecodingContainer<NestedKey>.self)
        let container = try TapeKeyedContainer<NestedKey>(
            decoder: decoder, object: index, path: path.appending(index: currentIndex))
        advance()
        return KeyedDecodingContainer(container)
    }

    func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let index = try next(
            (any UnkeyedDecodingContainer).self, "Cannot get nested unkeyed container -- unkeyed container is at end.")
        let container = try TapeUnkeyedContainer(
            decoder: decoder, array: index, path: path.appending(index: currentIndex))
        advance()
        return container
    }

    func superDecoder() throws -> any Decoder {
        let index = try next((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
        let superDecoder = decoder.superDecoder(at: index, path: path.appending(index: currentIndex))
        advance()
        return superDecoder
    }
}
