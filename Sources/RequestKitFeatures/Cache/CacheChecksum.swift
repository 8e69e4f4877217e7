import CZlib
import Foundation

/// The CRC-32 that ``DiskCacheStore`` keeps at the end of each file, computed by the system's zlib: a check against
/// accidents (a flipped bit, a file cut short or overwritten), not against an attacker, who could write a matching
/// one. The same CRC as gzip and PNG.
///
/// A file written in pieces whose early bytes are filled in last (a body stored while it streams) has its CRC
/// combined from the CRCs of its pieces (``combined(with:length:)``), so that no piece is read twice.
///
/// ```swift
/// var checksum = CacheChecksum()
/// checksum.update(Data("123456789".utf8))
/// checksum.value  // 0xCBF43926
/// ```
struct CacheChecksum: Sendable, Hashable {
    /// The CRC-32 of the bytes so far.
    private(set) var value: UInt32 = 0

    /// The CRC-32 of no bytes.
    init() {}

    /// The CRC-32 of `data`.
    init(of data: some DataProtocol) {
        update(data)
    }

    /// Adds `data` to the bytes checked.
    mutating func update(_ data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { buffer in
                guard var base = buffer.baseAddress?.assumingMemoryBound(to: Bytef.self) else { return }
                var left = buffer.count
                var crc = uLong(value)
                // zlib takes lengths as 32-bit numbers: a gigabyte at a time.
                while left > 0 {
                    let count = min(left, 1 << 30)
                    crc = crc32(crc, base, uInt(count))
                    base += count
                    left -= count
                }
                value = UInt32(truncatingIfNeeded: crc)
            }
        }
    }

    /// The CRC-32 of these bytes followed by `length` bytes whose CRC-32 is `next`.
    func combined(with next: CacheChecksum, length: Int) -> CacheChecksum {
        var result = CacheChecksum()
        result.value = UInt32(truncatingIfNeeded: crc32_combine(uLong(value), uLong(next.value), .init(length)))
        return result
    }
}
