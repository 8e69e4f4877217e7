import Foundation

/// SHA-256 (FIPS 180-4), computed incrementally, for checking uploads without CryptoKit (absent on Linux).
///
/// ```swift
/// var digest = SHA256Digest()
/// digest.update(Data("abc".utf8))
/// digest.finalizeHex()  // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
public struct SHA256Digest: Sendable {
    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    private var pending: [UInt8] = []
    private var totalBytes: UInt64 = 0

    /// Creates an empty digest.
    ///
    /// ```swift
    /// var digest = SHA256Digest()
    /// ```
    public init() {}

    /// The lowercase hexadecimal SHA-256 of `data` in one call.
    ///
    /// ```swift
    /// SHA256Digest.hex(of: Data())  // "e3b0c442…b855"
    /// ```
    /// - Parameter data: The bytes to hash.
    /// - Returns: 64 lowercase hexadecimal digits.
    public static func hex(of data: Data) -> String {
        var digest = SHA256Digest()
        digest.update(data)
        return digest.finalizeHex()
    }

    /// Adds `data` to the message.
    ///
    /// ```swift
    /// digest.update(Data("more".utf8))
    /// ```
    /// - Parameter data: The next bytes of the message.
    public mutating func update(_ data: Data) {
        totalBytes &+= UInt64(data.count)
        data.withUnsafeBytes { bytes in
            var offset = 0
            if !pending.isEmpty {
                let needed = min(64 - pending.count, bytes.count)
                pending.append(contentsOf: bytes[0..<needed])
                offset = needed
                guard pending.count == 64 else { return }
                pending.withUnsafeBytes { compressBlocks($0) }
                pending.removeAll(keepingCapacity: true)
            }
            let wholeBlocks = (bytes.count - offset) / 64 * 64
            if wholeBlocks > 0 {
                compressBlocks(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + wholeBlocks)]))
            }
            pending.append(contentsOf: bytes[(offset + wholeBlocks)...])
        }
    }

    /// Pads the message and returns the digest as 32 bytes.
    ///
    /// ```swift
    /// let bytes = digest.finalize()
    /// ```
    /// - Returns: The 32-byte digest.
    public func finalize() -> [UInt8] {
        var copy = self
        let bitLength = totalBytes &* 8
        copy.pending.append(0x80)
        while copy.pending.count % 64 != 56 { copy.pending.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) {
            copy.pending.append(UInt8(truncatingIfNeeded: bitLength >> shift))
        }
        let padded = copy.pending
        padded.withUnsafeBytes { copy.compressBlocks($0) }
        return copy.state.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
    }

    /// Pads the message and returns the digest as 64 lowercase hexadecimal digits.
    ///
    /// ```swift
    /// let hex = digest.finalizeHex()
    /// ```
    /// - Returns: The hexadecimal digest.
    public func finalizeHex() -> String {
        finalize().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Runs the compression function over `blocks`, whose length is a multiple of 64 bytes.
    private mutating func compressBlocks(_ blocks: UnsafeRawBufferPointer) {
        // The first 64 words hold the message schedule, the next 64 a local copy of the round constants.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 128) { words in
            for round in 0..<64 { words[64 + round] = Self.roundConstants[round] }
            var offset = 0
            while offset + 64 <= blocks.count {
                compress(blocks, at: offset, schedule: words)
                offset += 64
            }
        }
    }

    private mutating func compress(
        _ blocks: UnsafeRawBufferPointer, at offset: Int, schedule words: UnsafeMutableBufferPointer<UInt32>
    ) {
        for word in 0..<16 {
            words[word] = UInt32(bigEndian: blocks.loadUnaligned(fromByteOffset: offset + word * 4, as: UInt32.self))
        }
        for word in 16..<64 {
            let previous = words[word - 15]
            let sigma0 = previous.rotatedRight(7) ^ previous.rotatedRight(18) ^ (previous &>> 3)
            let older = words[word - 2]
            let sigma1 = older.rotatedRight(17) ^ older.rotatedRight(19) ^ (older &>> 10)
            words[word] = words[word - 16] &+ sigma0 &+ words[word - 7] &+ sigma1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for round in 0..<64 {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let temporary1 = h &+ sum1 &+ choice &+ words[64 + round] &+ words[round]
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temporary2 = sum0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temporary1, c, b, a, temporary1 &+ temporary2)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }
}

extension UInt32 {
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self &>> count) | (self &<< (32 - count))
    }
}
