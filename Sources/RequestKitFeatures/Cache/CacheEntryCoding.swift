import Foundation
import RequestKitModel

/// The file format of ``DiskCacheStore``: one file per key, holding the key and its variants, its own length first
/// and a CRC-32 of every byte before it last.
///
///     "RKCACHE2"  u64 file length  u32 variant count  key
///     per variant: u32 status, f64 request time, f64 response time, url ("" for none),
///                  u32 field count, (name, value)…, u32 varying count, (name, u8 has value, value)…,
///                  u64 body length, body
///     u32 CRC-32 of all the bytes before it
///
/// Strings are a u32 byte count and UTF-8; numbers little-endian. A reader checks the file's length against the
/// length it holds before reading the rest (a file with bytes added is not read whole), the CRC against the bytes,
/// and every length inside against what is left, so a truncated, lengthened or corrupt file reads as nil (a miss),
/// never a crash. A body stored while it streams is written after its variant's head, and its length, the variant
/// count, the file length and the CRC are filled in once it has ended.
enum CacheEntryCoding {
    static let magic = Array("RKCACHE2".utf8)
    /// The most fields or varying fields a variant may have, and variants a file may hold: more is corruption.
    static let maxCount = 10_000

    /// The byte offset of the file length in a file.
    static let lengthOffset = magic.count
    /// The byte offset of the variant count in a file.
    static let countOffset = lengthOffset + 8
    /// The bytes before the key: the magic, the file length and the variant count.
    static let prefixLength = countOffset + 4
    /// The bytes of the CRC at the end.
    static let checksumLength = 4
    /// The smallest well-formed file: the prefix, an empty key and the CRC.
    static let minimumLength = prefixLength + 4 + checksumLength

    /// The whole file of `key` and `variants`.
    static func encode(key: String, variants: [CachedResponse]) -> Data {
        var data = header(key: key, count: variants.count)
        for variant in variants { append(variant, to: &data) }
        let length = data.count + checksumLength
        data.replaceSubrange(lengthOffset..<countOffset, with: bytes(of: UInt64(length)))
        data.append(contentsOf: bytes(of: CacheChecksum(of: data).value))
        return data
    }

    /// The start of a file: the magic, the file length (0 until it is known), the variant count and the key.
    static func header(key: String, count: Int) -> Data {
        var data = Data(magic)
        append(UInt64(0), to: &data)
        append(UInt32(clamping: count), to: &data)
        append(key, to: &data)
        return data
    }

    /// The start of a file as it is when whole: the magic, `length` and `count`.
    static func prefix(length: Int, count: Int) -> [UInt8] {
        magic + bytes(of: UInt64(length)) + bytes(of: UInt32(clamping: count))
    }

    /// The file length a file's first bytes give; nil when they are not this format's.
    static func declaredLength(_ prefix: some DataProtocol) -> Int? {
        let bytes = Array(prefix.prefix(countOffset))
        guard bytes.count == countOffset, Array(bytes[..<lengthOffset]) == magic else { return nil }
        var length: UInt64 = 0
        for (index, byte) in bytes[lengthOffset...].enumerated() { length |= UInt64(byte) << (8 * index) }
        return length <= UInt64(Int.max) ? Int(length) : nil
    }

    /// Appends `variant`, its body included.
    static func append(_ variant: CachedResponse, to data: inout Data) {
        appendHead(of: variant, bodyLength: variant.body.count, to: &data)
        data.append(variant.body)
    }

    /// Appends `variant` up to its body: everything but the body, the body length last (8 bytes).
    static func appendHead(of variant: CachedResponse, bodyLength: Int, to data: inout Data) {
        append(UInt32(clamping: variant.status), to: &data)
        append(variant.requestTime.timeIntervalSince1970.bitPattern, to: &data)
        append(variant.responseTime.timeIntervalSince1970.bitPattern, to: &data)
        append(variant.url?.absoluteString ?? "", to: &data)
        append(UInt32(clamping: variant.headers.count), to: &data)
        for field in variant.headers {
            append(field.name, to: &data)
            append(field.value, to: &data)
        }
        append(UInt32(clamping: variant.varyingFields.count), to: &data)
        for field in variant.varyingFields {
            append(field.name, to: &data)
            data.append(field.value == nil ? 0 : 1)
            append(field.value ?? "", to: &data)
        }
        append(UInt64(bodyLength), to: &data)
    }

    /// `value` as the format writes it: little-endian.
    static func bytes<T: FixedWidthInteger>(of value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }

    /// The key and variants in `data`, or nil when it is not a whole, well-formed file: its length not the one it
    /// holds, its CRC not its bytes', or anything inside out of place.
    static func decode(_ data: Data) -> (key: String, variants: [CachedResponse])? {
        guard data.count >= minimumLength, declaredLength(data) == data.count else { return nil }
        let checked = data.prefix(data.count - checksumLength)
        var stored: UInt32 = 0
        for (index, byte) in data.suffix(checksumLength).enumerated() { stored |= UInt32(byte) << (8 * index) }
        guard CacheChecksum(of: checked).value == stored else { return nil }
        var reader = Reader(data: checked)
        guard reader.bytes(prefixLength - 4) != nil, let count = reader.count(), let key = reader.string() else {
            return nil
        }
        var variants: [CachedResponse] = []
        for _ in 0..<count {
            guard let status = reader.u32(), let requested = reader.u64(), let responded = reader.u64(),
                let url = reader.string(), let fieldCount = reader.count()
            else { return nil }
            var headers = HTTPHeaders()
            for _ in 0..<fieldCount {
                guard let name = reader.string(), let value = reader.string() else { return nil }
                headers.add(name, value)
            }
            guard let varyingCount = reader.count() else { return nil }
            var varying: [CachedResponse.VaryingField] = []
            for _ in 0..<varyingCount {
                guard let name = reader.string(), let hasValue = reader.bytes(1)?.first, let value = reader.string()
                else { return nil }
                varying.append(.init(name: name, value: hasValue == 1 ? value : nil))
            }
            guard let length = reader.u64(), length <= UInt64(Int.max), let body = reader.bytes(Int(length)) else {
                return nil
            }
            variants.append(
                CachedResponse(
                    status: Int(status), headers: headers, body: Data(body), url: url.isEmpty ? nil : URL(string: url),
                    requestTime: Date(timeIntervalSince1970: Double(bitPattern: requested)),
                    responseTime: Date(timeIntervalSince1970: Double(bitPattern: responded)), varyingFields: varying))
        }
        return reader.isAtEnd ? (key, variants) : nil
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        data.append(contentsOf: bytes(of: value))
    }

    private static func append(_ text: String, to data: inout Data) {
        let bytes = Array(text.utf8)
        append(UInt32(bytes.count), to: &data)
        data.append(contentsOf: bytes)
    }

    /// Reads `data` front to back, every read checked against what is left.
    private struct Reader {
        let data: Data
        var offset: Int

        init(data: Data) {
            self.data = data
            offset = data.startIndex
        }

        var isAtEnd: Bool { offset == data.endIndex }

        mutating func bytes(_ count: Int) -> Data? {
            guard count >= 0, data.endIndex - offset >= count else { return nil }
            defer { offset += count }
            return data[offset..<offset + count]
        }

        mutating func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard let bytes = bytes(MemoryLayout<T>.size) else { return nil }
            var value: T = 0
            for (index, byte) in bytes.enumerated() { value |= T(byte) << (8 * index) }
            return value
        }

        mutating func u32() -> UInt32? { integer(UInt32.self) }
        mutating func u64() -> UInt64? { integer(UInt64.self) }

        mutating func count() -> Int? {
            guard let value = u32(), value <= CacheEntryCoding.maxCount else { return nil }
            return Int(value)
        }

        mutating func string() -> String? {
            guard let length = u32(), let bytes = bytes(Int(length)) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
