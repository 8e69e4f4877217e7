import Foundation

/// Decodes `Decodable` values from JSON bytes with RequestKit's JSON parser: the decoder behind `decode`,
/// `value()`, endpoints' `Output` and `Client`'s responses.
///
/// It honours the strategies of Foundation's `JSONDecoder` (keys, dates, data, non-conforming floats and
/// `userInfo`), reports the same `DecodingError`s with the same coding paths, and decodes several times faster:
/// the document is validated once into a compact index of its values, and strings and numbers are converted
/// only when a type asks for them. The name says what it produces (typed values, where `Json` is the untyped
/// one) and keeps it apart from Foundation's `JSONDecoder`, whose options it takes.
///
/// ```swift
/// var decoder = TypedJsonDecoder()
/// decoder.keyDecodingStrategy = .convertFromSnakeCase
/// decoder.dateDecodingStrategy = .iso8601
/// let todos = try decoder.decode([Todo].self, from: response.body)
/// ```
///
/// Requests that take a `JSONDecoder` decode with a `TypedJsonDecoder` holding that decoder's strategies; see
/// ``init(matching:)``.
public struct TypedJsonDecoder: Sendable {
    /// How JSON keys map to coding keys; `.useDefaultKeys` compares them as they are.
    ///
    /// ```swift
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase  // "user_id" decodes `userId`
    /// ```
    public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys
    /// How `Date` values are read; `.deferredToDate` (seconds since 2001 as a number) by default.
    ///
    /// ```swift
    /// decoder.dateDecodingStrategy = .secondsSince1970
    /// ```
    public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .deferredToDate
    /// How `Data` values are read; Base64 text by default.
    ///
    /// ```swift
    /// decoder.dataDecodingStrategy = .base64
    /// ```
    public var dataDecodingStrategy: JSONDecoder.DataDecodingStrategy = .base64
    /// Whether strings stand for infinities and NaN; by default they do not.
    ///
    /// ```swift
    /// decoder.nonConformingFloatDecodingStrategy = .convertFromString(
    ///     positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
    /// ```
    public var nonConformingFloatDecodingStrategy: JSONDecoder.NonConformingFloatDecodingStrategy = .throw
    /// Values that types read from `decoder.userInfo` while decoding.
    ///
    /// ```swift
    /// decoder.userInfo[.apiVersion] = 2
    /// ```
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// How deeply arrays and objects may nest; deeper documents are rejected as not valid JSON.
    ///
    /// ```swift
    /// decoder.maximumDepth = 64
    /// ```
    public var maximumDepth = 512

    /// Creates a decoder with `JSONDecoder`'s default strategies.
    ///
    /// ```swift
    /// let user = try TypedJsonDecoder().decode(User.self, from: data)
    /// ```
    public init() {}

    /// Creates a decoder with the strategies of `decoder`, or nil when it asks for something this decoder does
    /// not do: JSON5, a top-level object without braces, or a subclass of `JSONDecoder` (which may override
    /// `decode`). Such decoders are used as they are.
    ///
    /// ```swift
    /// let foundation = JSONDecoder()
    /// foundation.dateDecodingStrategy = .iso8601
    /// let decoder = TypedJsonDecoder(matching: foundation)  // same strategies
    /// ```
    ///
    /// - Parameter decoder: The decoder whose strategies to take.
    public init?(matching decoder: JSONDecoder) {
        guard type(of: decoder) == JSONDecoder.self, !decoder.allowsJSON5, !decoder.assumesTopLevelDictionary,
            Self.canDecode(decoder.dateDecodingStrategy)
        else { return nil }
        keyDecodingStrategy = decoder.keyDecodingStrategy
        dateDecodingStrategy = decoder.dateDecodingStrategy
        dataDecodingStrategy = decoder.dataDecodingStrategy
        nonConformingFloatDecodingStrategy = decoder.nonConformingFloatDecodingStrategy
        userInfo = decoder.userInfo
    }

    /// Decodes a value of `type` from a JSON document.
    ///
    /// ```swift
    /// let todo = try TypedJsonDecoder().decode(Todo.self, from: Data(#"{"id":1,"title":"a"}"#.utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The UTF-8 bytes of the document (a byte order mark is skipped).
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError`, as `JSONDecoder` would throw it: `.dataCorrupted` with an empty coding path
    ///   when the bytes are not valid JSON (the `JsonParsingError` saying where is its underlying error), and
    ///   `.keyNotFound`, `.valueNotFound`, `.typeMismatch` or `.dataCorrupted` with the path of the value.
    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        let tape = try data.withUnsafeBytes { bytes in try Self.tape(from: bytes, maximumDepth: maximumDepth) }
        let decoder = TapeDecoder(owner: JsonTape.Owner(tape), options: self)
        return try decoder.unwrap(type, at: 0, path: .root, key: .none)
    }

    /// Decodes a value of `type` from JSON bytes such as `[UInt8]`.
    ///
    /// ```swift
    /// let ids = try TypedJsonDecoder().decode([Int].self, from: Array("[1,2]".utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - bytes: The UTF-8 bytes of the document.
    /// - Returns: The decoded value.
    /// - Throws: `DecodingError`, as ``decode(_:from:)-(_,Data)`` does.
    public func decode<Value: Decodable, Bytes: Sequence<UInt8>>(_ type: Value.Type, from bytes: Bytes) throws -> Value
    {
        let build = { (buffer: UnsafeBufferPointer<UInt8>) in
            Result { try Self.tape(from: UnsafeRawBufferPointer(buffer), maximumDepth: maximumDepth) }
        }
        let tape =
            try (bytes.withContiguousStorageIfAvailable(build) ?? Array(bytes).withUnsafeBufferPointer(build)).get()
        let decoder = TapeDecoder(owner: JsonTape.Owner(tape), options: self)
        return try decoder.unwrap(type, at: 0, path: .root, key: .none)
    }

    private static func tape(from bytes: UnsafeRawBufferPointer, maximumDepth: Int) throws -> JsonTape {
        guard bytes.count <= JsonTape.maximumSize else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [],
                    debugDescription: "The document is \(bytes.count) bytes long, beyond the typed decoder's limit of "
                        + "\(JsonTape.maximumSize) bytes."))
        }
        do {
            return try JsonTape(copying: bytes, maximumDepth: maximumDepth)
        } catch {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
    }
}
