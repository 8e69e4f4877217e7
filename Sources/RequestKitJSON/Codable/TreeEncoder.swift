import Foundation

/// The `Encoder` that `TypedJsonEncoder` hands to `encode(to:)`: it builds an `EncodedValue` tree.
///
/// One instance serves a whole value: encoding a nested value saves the encoder's state, runs the value's
/// `encode(to:)` and restores it. A `superEncoder()` is a separate instance that writes its value back into its
/// container when it goes away, as `JSONEncoder`'s does.
final class TreeEncoder: Encoder, SingleValueEncodingContainer {
    let options: TypedJsonEncoder
    let userInfo: [CodingUserInfoKey: Any]
    let usesDefaultKeys: Bool
    var path: CodingPathNode
    /// What the value being encoded has encoded so far.
    var value: EncodedValue?
    /// For a super encoder: puts the encoded value into the container it belongs to.
    private let writeBack: ((EncodedValue) -> Void)?

    init(options: TypedJsonEncoder, path: CodingPathNode = .root, writeBack: ((EncodedValue) -> Void)? = nil) {
        self.options = options
        userInfo = options.userInfo
        if case .useDefaultKeys = options.keyEncodingStrategy {
            usesDefaultKeys = true
        } else {
            usesDefaultKeys = false
        }
        self.path = path
        self.writeBack = writeBack
    }

    deinit {
        writeBack?(value ?? .object(EncodedObject()))
    }

    var codingPath: [any CodingKey] { path.keys }

    /// A super encoder for a member or element of a container of this encoder.
    func superEncoder(path: CodingPathNode, writeBack: @escaping (EncodedValue) -> Void) -> TreeEncoder {
        TreeEncoder(options: options, path: path, writeBack: writeBack)
    }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: EncodedObject
        if case .object(let existing) = value {
            object = existing
        } else {
            object = EncodedObject()
            value = .object(object)
        }
        return KeyedEncodingContainer(TreeKeyedContainer<Key>(encoder: self, object: object, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: EncodedArray
        if case .array(let existing) = value {
            array = existing
        } else {
            array = EncodedArray()
            value = .array(array)
        }
        return TreeUnkeyedContainer(encoder: self, array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        self
    }

    // MARK: Values

    /// Encodes `value`: Foundation's types by their strategies, others through their `encode(to:)`. Nil when
    /// the value encoded nothing.
    func wrap<Value: Encodable>(
        _ value: Value, path parent: CodingPathNode, key: CodingPathNode.Component
    ) throws
        -> EncodedValue?
    {
        if Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self
            || (!usesDefaultKeys && value is any StringKeyedEncodableDictionary)
        {
            return try foundationValue(value, path: parent, key: key)
        }
        return try encodeNested(path: parent.appending(key)) { try value.encode(to: self) }
    }

    /// Runs `body` with a fresh value at `path` and returns what it encoded, restoring the encoder's state.
    func encodeNested(path newPath: CodingPathNode, _ body: () throws -> Void) rethrows -> EncodedValue? {
        let savedValue = value
        let savedPath = path
        value = nil
        path = newPath
        defer {
            value = savedValue
            path = savedPath
        }
        try body()
        return value
    }

    /// A finite number as it is, a non-conforming one as the strategy says.
    func number<Float: BinaryFloatingPoint>(
        _ number: Float, path: CodingPathNode, key: CodingPathNode.Component
    )
        throws -> EncodedValue
    {
        if number.isFinite {
            if let float = number as? Swift.Float {
                return .float(float)
            }
            return .double(Double(number))
        }
        guard
            case .convertToString(let positiveInfinity, let negativeInfinity, let nan) =
                options.nonConformingFloatEncodingStrategy
        else {
            throw EncodingError.invalidValue(
                number,
                EncodingError.Context(
                    codingPath: path.keys(appending: key),
                    debugDescription: "Unable to encode \(Float.self).\(number) directly in JSON."))
        }
        return .string(number.isNaN ? nan : number > 0 ? positiveInfinity : negativeInfinity)
    }

    /// The JSON key for `key` under the key strategy; `path` is the container's.
    func jsonKey(_ key: some CodingKey, path: CodingPathNode) -> String {
        if usesDefaultKeys {
            return key.stringValue
        }
        switch options.keyEncodingStrategy {
        case .convertToSnakeCase:
            return Self.snakeCase(key.stringValue)
        case .custom(let convert):
            return convert(path.keys + [key]).stringValue
        default:
            return key.stringValue
        }
    }

    /// `JSONEncoder`'s snake case: a word ends before each upper-case letter, a run of capitals before a
    /// lower-case letter is a word of its own (less its last capital), and the words are lower-cased and joined
    /// with underscores: `myURLProperty` becomes `my_url_property`.
    static func snakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        let characters = Array(key)
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchStart = 1
        while let upper = characters[searchStart...].firstIndex(where: \.isUppercase) {
            words.append(wordStart..<upper)
            guard let lower = characters[upper...].firstIndex(where: \.isLowercase) else {
                wordStart = upper
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(upper..<(lower - 1))
                wordStart = lower - 1
            }
            searchStart = lower + 1
            if searchStart >= characters.count { break }
        }
        words.append(wordStart..<characters.count)
        return words.map { String(characters[$0]).lowercased() }.joined(separator: "_")
    }

    // MARK: SingleValueEncodingContainer

    func encodeNil() {
        value = .null
    }

    func encode(_ value: Bool) {
        self.value = .bool(value)
    }

    func encode(_ value: String) {
        self.value = .string(value)
    }

    func encode(_ value: Double) throws {
        self.value = try number(value, path: path, key: .none)
    }

    func encode(_ value: Float) throws {
        self.value = try number(value, path: path, key: .none)
    }

    func encode(_ value: Int) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: Int8) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: Int16) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: Int32) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: Int64) {
        self.value = .integer(value)
    }

    func encode(_ value: UInt) {
        self.value = .unsignedInteger(UInt64(value))
    }

    func encode(_ value: UInt8) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: UInt16) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: UInt32) {
        self.value = .integer(Int64(value))
    }

    func encode(_ value: UInt64) {
        self.value = .unsignedInteger(value)
    }

    func encode<Value: Encodable>(_ value: Value) throws {
        self.value = try wrap(value, path: path, key: .none) ?? .object(EncodedObject())
    }
}
