import Foundation

#if canImport(COpenSSL)
import COpenSSL
#elseif canImport(CryptoKit)
import CryptoKit
#endif

/// SHA-1 of a few bytes, from the system's cryptography: OpenSSL's on Linux, CryptoKit's `Insecure.SHA1` on Apple
/// platforms. The opening handshake needs it for `Sec-WebSocket-Accept` (RFC 6455 §4.2.2), where it proves that
/// the server read the request, not that anything is secret.
///
/// ```swift
/// SHA1Digest.hash(Array("abc".utf8))  // a9 99 3e 36 47 06 81 6a ba 3e 25 71 78 50 c2 6c 9c d0 d8 9d
/// ```
package enum SHA1Digest {
    /// The 20-byte digest of `bytes`, or nil when the system library fails.
    package static func hash(_ bytes: [UInt8]) -> [UInt8]? {
        #if canImport(COpenSSL)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var count: UInt32 = 0
        let status = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &count, EVP_sha1(), nil)
            }
        }
        guard status == 1, count == 20 else { return nil }
        return Array(digest.prefix(20))
        #elseif canImport(CryptoKit)
        return Array(Insecure.SHA1.hash(data: bytes))
        #else
        return nil
        #endif
    }
}
