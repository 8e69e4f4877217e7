#if canImport(COpenSSL)
import COpenSSL
import Foundation

/// The SHA-256 hash of a certificate's DER SubjectPublicKeyInfo, the value curl's `--pinnedpubkey sha256//…` pins.
///
/// ```swift
/// let pin = TLSPublicKeyHash.sha256(of: certificate).map { "sha256//" + $0.base64EncodedString() }
/// ```
enum TLSPublicKeyHash {
    /// The hash, computed by OpenSSL, or `nil` when the key cannot be encoded.
    static func sha256(of certificate: OpaquePointer) -> Data? {
        guard let publicKey = X509_get_X509_PUBKEY(certificate) else { return nil }
        let length = i2d_X509_PUBKEY(publicKey, nil)
        guard length > 0 else { return nil }
        var encoded = [UInt8](repeating: 0, count: Int(length))
        let written = encoded.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509_PUBKEY(publicKey, &cursor)
        }
        guard written == length else { return nil }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var digestLength: UInt32 = 0
        guard EVP_Digest(encoded, encoded.count, &digest, &digestLength, EVP_sha256(), nil) == 1 else { return nil }
        return Data(digest.prefix(Int(digestLength)))
    }
}
#endif
