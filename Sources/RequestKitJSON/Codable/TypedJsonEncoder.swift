import Foundation

/// Encodes `Encodable` values to JSON bytes with RequestKit's JSON writer: the encoder behind `Body(value)`.
///
/// It honours the strategies of Foundation's `JSONEncoder` (keys, dates, data, non-conforming floats, output
/// formatting and `userInfo`) and writes the same JSON: numbers, escapes (including `\/` unless
/// `.withoutEscapingSlashes`), the pretty layout and the sorted key order are those of `JSONEncoder`. Without
/// `.sortedKeys`, members keep the order they were encoded in (`JSONEncoder`'s order is unspecified). The name
/// pairs it with ``TypedJsonDecoder`` and keeps it apart from Foundation's `JSONEncoder`, whose options it takes.
///
/// ```swift
/// var encoder = TypedJsonEncoder()
/// encoder.keyEncodingStrategy = .convertToSnakeCase
/// encoder.outputFormatting = [.sortedKeys]
/// let body = try encoder.encode(Todo(userId: 1, title: "a"))  // {"title":"a","user_id":1}
/// ```
public struct TypedJsonEncoder: Sendable {
    /// Layout: `.prettyPrinted`, `.sortedKeys`, `.withoutEscapingSlashes`.
    ///
    /// ```swift
    /// encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    /// ```
    public var outputFormatting: JSONEncoder.OutputFormatting = []
    /// How coding keys become JSON keys.
    ///
    /// ```swift
    /// encoder.keyEncodingStrategy = .convertToSnakeCase  // `userId` is written "user_id"
    /// ```
    public var keyEncodingStrategy: JSONEncoder.KeyEncodingStrategy = .useDefaultKeys
    /// How `Date` values are written; `.deferredToDate` (seconds since 2001) by default.
    ///
    /// ```swift
    /// encoder.dateEncodingStrategy = .iso8601
    /// ```
    public var dateEncodingStrategy: JSONEncoder.DateEncodingStrategy = .deferredToDate
    /// How `Data` values are written; Base64 text by default.
    ///
    /// ```swift
    /// encoder.dataEncodingStrategy = .base64
    /// ```
    public var dataEncodingStrategy: JSONEncoder.DataEncodingStrategy = .base64
    /// What infinities and NaN become; by default encoding them fails.
    ///
    /// ```swift
    /// encoder.nonConformingFloatEncodingStrategy = .convertToString(
    ///     positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    /// ```
    public var nonConformingFloatEncodingStrategy: JSONEncoder.NonConformingFloatEncodingStrategy = .throw
    /// Values that types read from `encoder.userInfo` while encoding.
    ///
    /// ```swift
    /// encoder.userInfo[.apiVersion] = 2
    /// ```
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with `JSONEncoder`'s default strategies.
    ///
    /// ```swift
    /// let data = try TypedJsonEncoder().encode(["a": 1])
    /// ```
    public init() {}

    /// Creates an encoder with the strategies of `encoder`, or nil when it is a subclass of `JSONEncoder` (which
    /// may override `encode`) or uses a strategy this encoder does not know.
    ///
    /// ```swift
    /// let foundation = JSONEncoder()
    /// foundation.keyEncodingStrategy = .convertToSnakeCase
    /// let encoder = TypedJsonEncoder(matching: foundation)
    /// ```
    ///
    /// - Parameter encoder: The encoder whose strategies to take.
    public init?(matching encoder: JSONEncoder) {
        guard type(of: encoder) == JSONEncoder.self, Self.canEncode(encoder.dateEncodingStrategy) else { return nil }
        outputFormatting = encoder.outputFormatting
        keyEncodingStrategy = encoder.keyEncodingStrategy
        dateEncodingStrategy = encoder.dateEncodingStrategy
        dataEncodingStrategy = encoder.dataEncodingStrategy
        nonConformingFloatEncodingStrategy = encoder.nonConformingFloatEncodingStrategy
        userInfo = encoder.userInfo
    }

    /// Encodes `value` as a JSON document.
    ///
    /// ```swift
    /// let data = try TypedJsonEncoder().encode(Todo(id: 1, title: "a"))  // {"id":1,"title":"a"}
    /// ```
    ///
    /// - Parameter value: The value to encode.
    /// - Returns: The UTF-8 bytes of the document.
    /// - Throws: `EncodingError.invalidValue` as `JSONEncoder` throws it: for an infinity or NaN without a
    ///   non-conforming float strategy, or a value that encodes nothing.
    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        Data(try encodedBytes(value))
    }

    /// Encodes `value` as a JSON document, as bytes.
    ///
    /// ```swift
    /// let bytes = try TypedJsonEncoder().encodedBytes([1, 2])  // Array("[1,2]".utf8)
    /// ```
    ///
    /// - Parameter value: The value to encode.
    /// - Returns: The UTF-8 bytes of the document.
    /// - Throws: `EncodingError.invalidValue`, as ``encode(_:)`` does.
    public func encodedBytes<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        if !outputFormatting.contains(.prettyPrinted), !outputFormatting.contains(.sortedKeys),
            let bytes = directlyEncodedBytes(value)
        {
            return bytes
        }
        return try treeEncodedBytes(value)
    }

    /// The bytes written while `value` encodes, or nil when the value needs the tree (a repeated key, a super
    /// encoder, containers used out of order) or encoding failed, which the tree then reports.
    func directlyEncodedBytes<Value: Encodable>(_ value: Value) -> [UInt8]? {
        let encoder = DirectEncoder(options: self)
        guard (try? encoder.encodeTopLevel(value)) == true, !encoder.needsTree else { return nil }
        return encoder.outputBytes
    }

    /// Encodes `value` into a tree of `EncodedValue`s, then writes it: any layout, any use of the containers.
    func treeEncodedBytes<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let encoder = TreeEncoder(options: self)
        guard let encoded = try encoder.wrap(value, path: .root, key: .none) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: [], debugDescription: "Top-level \(Value.self) did not encode any values."))
        }
        var writer = EncodedValueWriter(formatting: outputFormatting)
        writer.write(encoded)
        return writer.output
    }

    static func canEncode(_ strategy: JSONEncoder.DateEncodingStrategy) -> Bool {
        switch strategy {
        case .deferredToDate, .secondsSince1970, .millisecondsSince1970, .iso8601, .custom: true
        #if canImport(Darwin)
        case .formatted: true
        @unknown default: false
        #endif
        }
    }
}
