#if canImport(COpenSSL)
import COpenSSL
#endif

/// Where a client's masking keys come from by default: the system's CSPRNG as OpenSSL draws from it (`RAND_bytes`,
/// seeded and reseeded by the operating system), 64 keys per draw, so that sending a frame costs no system call of
/// its own. Where OpenSSL is not linked (Apple platforms), `SystemRandomNumberGenerator`, which draws in user space
/// there; also when a draw fails.
///
/// ```swift
/// var keys = WebSocketMaskingKeys()
/// let key = WebSocketMaskingKey.random(using: &keys)
/// ```
package struct WebSocketMaskingKeys: RandomNumberGenerator, Sendable {
    /// Words drawn, handed out up to `taken`.
    private var words: [UInt64] = []
    private var taken = 0

    /// Masking keys from the system's CSPRNG.
    package init() {}

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        #if canImport(COpenSSL)
        if taken == words.count { draw() }
        if taken < words.count {
            defer { taken += 1 }
            return words[taken]
        }
        #endif
        var system = SystemRandomNumberGenerator()
        return system.next()
    }

    #if canImport(COpenSSL)
    /// Draws the next 64 words; none when OpenSSL refuses.
    private mutating func draw() {
        words = [UInt64](repeating: 0, count: 64)
        taken = 0
        let drawn = words.withUnsafeMutableBytes { bytes -> Bool in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            return RAND_bytes(base, Int32(bytes.count)) == 1
        }
        if !drawn { words = [] }
    }
    #endif
}
