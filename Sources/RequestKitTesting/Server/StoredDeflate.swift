import Foundation

/// Wraps bytes in the gzip (RFC 1952) and zlib (RFC 1950) formats using DEFLATE *stored* blocks (RFC 1951 §3.2.4).
///
/// Stored blocks carry the data uncompressed, so no zlib library is needed, yet the output is valid for every
/// decoder: a client that handles `Content-Encoding: gzip` or `deflate` decodes it like any compressed body.
///
/// ```swift
/// let body = StoredDeflate.gzip(Data("hello".utf8))  // 1f 8b 08 … 68 65 6c 6c 6f … crc32 size
/// ```
enum StoredDeflate {
    /// The largest payload one stored block can carry.
    private static let maxBlockLength = 65_535

    /// The DEFLATE stream: stored blocks of at most 65,535 bytes, the last one marked final.
    static func deflate(_ data: Data) -> Data {
        var output = Data()
        output.reserveCapacity(data.count + (data.count / maxBlockLength + 1) * 5)
        var offset = data.startIndex
        repeat {
            let length = min(maxBlockLength, data.endIndex - offset)
            let isFinal = offset + length == data.endIndex
            output.append(isFinal ? 1 : 0)
            let lengthBits = UInt16(length)
            output.append(contentsOf: [UInt8(lengthBits & 0xFF), UInt8(lengthBits >> 8)])
            output.append(contentsOf: [UInt8(~lengthBits & 0xFF), UInt8(~lengthBits >> 8)])
            output.append(data[offset..<(offset + length)])
            offset += length
        } while offset < data.endIndex
        return output
    }

    /// The zlib format, which is what HTTP's `Content-Encoding: deflate` means: header, DEFLATE, Adler-32.
    static func zlib(_ data: Data) -> Data {
        var output = Data([0x78, 0x01])
        output.append(deflate(data))
        output.append(contentsOf: bigEndianBytes(adler32(data)))
        return output
    }

    /// The gzip format: a minimal header, DEFLATE, CRC-32 and the length modulo 2³², both little-endian.
    static func gzip(_ data: Data) -> Data {
        var output = Data([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF])
        output.append(deflate(data))
        output.append(contentsOf: bigEndianBytes(crc32(data)).reversed())
        output.append(contentsOf: bigEndianBytes(UInt32(truncatingIfNeeded: data.count)).reversed())
        return output
    }

    /// The CRC-32 used by gzip (reflected polynomial 0xEDB88320).
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 {
                crc = crc & 1 == 1 ? (crc &>> 1) ^ 0xEDB8_8320 : crc &>> 1
            }
        }
        return ~crc
    }

    /// The Adler-32 checksum used by zlib.
    static func adler32(_ data: Data) -> UInt32 {
        var low: UInt32 = 1
        var high: UInt32 = 0
        for byte in data {
            low = (low + UInt32(byte)) % 65_521
            high = (high + low) % 65_521
        }
        return high << 16 | low
    }

    private static func bigEndianBytes(_ value: UInt32) -> [UInt8] {
        [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ]
    }
}
