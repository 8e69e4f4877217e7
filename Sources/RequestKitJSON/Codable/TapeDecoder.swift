import Foundation

/// The `Decoder` that `TypedJsonDecoder` hands to `init(from:)`: a position on a `JsonTape` and its coding path.
///
/// One instance serves a whole document: decoding a nested value moves it to the value's node and path, runs
/// the value's `init(from:)` and moves it back, so nested values cost no decoder allocation (only a path node).
/// Containers keep the node and path they were created at. A `superDecoder()` is a separate instance.
final class TapeDecoder: Decoder, SingleValueDecodingContainer {
    let owner: JsonTape.Owner
    let tape: JsonTape
    let options: TypedJsonDecoder
    let userInfo: [CodingUserInfoKey: Any]
    /// The key strategy is `.useDefaultKeys`, so keys are compared as bytes.
    let usesDefaultKeys: Bool
    /// The node of the value being decoded.
    var node: Int
    /// The coding path of the value being decoded.
    var path: CodingPathNode

    init(owner: JsonTape.Owner, options: TypedJsonDecoder, node: Int = 0, path: CodingPathNode = .root) {
        self.owner = owner
        tape = owner.tape
        self.options = options
        userInfo = options.userInfo
        if case .useDefaultKeys = options.keyDecodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
        self.node = node
        self.path = path
    }

    /// A decoder of its own for the value at `node` (or the null node), sharing the tape and options.
    func superDecoder(at node: Int, path: CodingPathNode) -> TapeDecoder {
        TapeDecoder(owner: owner, options: options, node: node, path: path)
    }

    var codingPath: [any CodingKey] { path.keys }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, object: node, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try TapeUnkeyedContainer(decoder: self, array: node, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    // MARK: Nested values

    /// Decodes the value at `index` as `type`: Foundation's types with a JSON strategy directly, any other type
    /// through its `init(from:)` with this decoder moved to the value.
    func unwrap<Value: Decodable>(
        _ type: Value.Type, at index: Int, path parent: CodingPathNode, key: CodingPathNode.Component
    ) throws -> Value {
        // The scalars that generic code asks for (the elements of `[Int]`, the values of `[String: String]`) are
        // read as their own containers' `decode` would read them, without a coding path node or a trip through
        // `init(from:)`. Each test compares two metadata pointers; the cast is to the type just compared.
        if Value.self == String.self {
            return unsafeBitCast(try string(at: index, path: parent, key: key), to: Value.self)
        }
        if Value.self == Int.self {
            return unsafeBitCast(try integer(Int.self, at: index, path: parent, key: key), to: Value.self)
        }
        if Value.self == Double.self {
            return unsafeBitCast(try floatingPoint(Double.self, at: index, path: parent, key: key), to: Value.self)
        }
        if Value.self == Bool.self {
            return unsafeBitCast(try bool(at: index, path: parent, key: key), to: Value.self)
        }
        if Value.self == Int64.self {
            return unsafeBitCast(try integer(Int64.self, at: index, path: parent, key: key), to: Value.self)
        }
        if Value.self == UInt64.self {
            return unsafeBitCast(try integer(UInt64.self, at: index, path: parent, key: key), to: Value.self)
        }
        if Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self
            || (!usesDefaultKeys && Value.self is any StringKeyedDictionary.Type)
        {
            return try unwrapFoundation(type, at: index, path: parent, key: key)
        }
        return try with(node: index, path: parent.appending(key)) { try Value(from: self) }
    }

    /// `unwrap` for the Foundation types, apart so that the common path needs no metadata of `Value?`.
    @inline(never)
    private func unwrapFoundation<Value: Decodable>(
        _ type: Value.Type, at index: Int, path parent: CodingPathNode, key: CodingPathNode.Component
    ) throws -> Value {
        if let value = try foundationValue(Value.self, at: index, path: parent, key: key) as? Value {
            return value
        }
        return try with(node: index, path: parent.appending(key)) { try Value(from: self) }
    }

    /// Runs `body` with the decoder moved to `index` and `path`, then moves it back.
    @inline(__always)
    func with<Result>(node index: Int, path newPath: CodingPathNode, _ body: () throws -> Result) rethrows -> Result {
        let savedNode = node
        let savedPath = path
        node = index
        path = newPath
        defer {
            node = savedNode
            self.path = savedPath
        }
        return try body()
    }

    // MARK: SingleValueDecodingContainer

    func decodeNil() -> Bool {
        tape.nodes[node].kind == .null
    }

    func decode(_ type: Bool.Type) throws -> Bool {
        try bool(at: node, path: path, key: .none)
    }

    func decode(_ type: String.Type) throws -> String {
        try string(at: node, path: path, key: .none)
    }

    func decode(_ type: Double.Type) throws -> Double {
        try floatingPoint(Double.self, at: node, path: path, key: .none)
    }

    func decode(_ type: Float.Type) throws -> Float {
        try floatingPoint(Float.self, at: node, path: path, key: .none)
    }

    func decode(_ type: Int.Type) throws -> Int {
        try integer(Int.self, at: node, path: path, key: .none)
    }

    func decode(_ type: Int8.Type) throws -> Int8 {
        try integer(Int8.self, at: node, path: path, key: .none)
    }

    func decode(_ type: Int16.Type) throws -> Int16 {
        try integer(Int16.self, at: node, path: path, key: .none)
    }

    func decode(_ type: Int32.Type) throws -> Int32 {
        try integer(Int32.self, at: node, path: path, key: .none)
    }

    func decode(_ type: Int64.Type) throws -> Int64 {
        try integer(Int64.self, at: node, path: path, key: .none)
    }

    func decode(_ type: UInt.Type) throws -> UInt {
        try integer(UInt.self, at: node, path: path, key: .none)
    }

    func decode(_ type: UInt8.Type) throws -> UInt8 {
        try integer(UInt8.self, at: node, path: path, key: .none)
    }

    func decode(_ type: UInt16.Type) throws -> UInt16 {
        try integer(UInt16.self, at: node, path: path, key: .none)
    }

    func decode(_ type: UInt32.Type) throws -> UInt32 {
        try integer(UInt32.self, at: node, path: path, key: .none)
    }

    func decode(_ type: UInt64.Type) throws -> UInt64 {
        try integer(UInt64.self, at: node, path: path, key: .none)
    }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try unwrap(type, at: node, path: path, key: .none)
    }
}
