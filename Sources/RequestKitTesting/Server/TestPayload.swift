import Foundation

/// The deterministic bodies that the built-in `/bytes/{n}` and `/large/{n}` routes send, so tests can compute
/// the expected bytes themselves.
///
/// ```swift
/// let (data, _) = try await URLSession.shared.data(from: server.url("/bytes/16?seed=7"))
/// #expect(data == TestPayload.randomBytes(count: 16, seed: 7))
/// ```
public enum TestPayload {
    /// `count` pseudo-random bytes from SplitMix64 seeded with `seed`, eight bytes per step, little-endian.
    ///
    /// ```swift
    /// TestPayload.randomBytes(count: 4, seed: 0)
    /// ```
    /// - Parameters:
    ///   - count: The number of bytes.
    ///   - seed: The generator's seed; the same seed always gives the same bytes.
    /// - Returns: The bytes.
    public static func randomBytes(count: Int, seed: UInt64) -> Data {
        var generator = SplitMix64(state: seed)
        var data = Data(count: max(count, 0))
        data.withUnsafeMutableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let word = generator.next()
                if bytes.count - offset >= 8 {
                    bytes.storeBytes(of: word.littleEndian, toByteOffset: offset, as: UInt64.self)
                    offset += 8
                } else {
                    for shift in stride(from: 0, to: (bytes.count - offset) * 8, by: 8) {
                        bytes[offset] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
                        offset += 1
                    }
                }
            }
        }
        return data
    }

    /// The byte at `offset` of a `/large/{n}` body: `offset % 251`, a pattern that does not repeat on any
    /// power-of-two boundary.
    ///
    /// ```swift
    /// #expect(body.enumerated().allSatisfy { $0.element == TestPayload.largeBodyByte(at: $0.offset) })
    /// ```
    /// - Parameter offset: The position in the body.
    /// - Returns: The byte at that position.
    public static func largeBodyByte(at offset: Int) -> UInt8 {
        UInt8(offset % 251)
    }

    /// The bytes of a `/large/{n}` body from `offset` for `count` bytes.
    ///
    /// ```swift
    /// #expect(body == TestPayload.largeBody(offset: 0, count: 1_000))
    /// ```
    /// - Parameters:
    ///   - offset: The position of the first byte.
    ///   - count: The number of bytes.
    /// - Returns: The bytes.
    public static func largeBody(offset: Int = 0, count: Int) -> Data {
        guard count > 0 else { return Data() }
        // One period of the pattern, starting where `offset` falls in it, then doubled until it is long enough:
        // a few large copies rather than a call per byte.
        let period = 251
        let start = ((offset % period) + period) % period
        var data = Data((0..<period).map { UInt8((start + $0) % period) })
        while data.count < count { data.append(data) }
        return data.prefix(count)
    }

    private struct SplitMix64 {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var value = state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }
}
