import Foundation

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// SHA-256, computed incrementally by the system's crypto library (CryptoKit on Apple platforms, OpenSSL 3 on
/// Linux), for checking uploads and naming recorded bodies.
///
/// ```swift
/// var digest = SHA256Digest()
/// digest.update(Data("abc".utf8))
/// digest.finalizeHex()  // "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// ```
public struct SHA256Digest: Sendable {
    #if canImport(CryptoKit)
    private var hasher = SHA256()
    #else
    private var context = SHA256Context()
    #endif

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
        #if canImport(CryptoKit)
        hasher.update(data: data)
        #else
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        context.update(data)
        #endif
    }

    /// Pads the message and returns the digest as 32 bytes.
    ///
    /// ```swift
    /// let bytes = digest.finalize()
    /// ```
    /// - Returns: The 32-byte digest.
    public func finalize() -> [UInt8] {
        #if canImport(CryptoKit)
        Array(hasher.finalize())
        #else
        context.copy().finish()
        #endif
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
}

#if !canImport(CryptoKit)
/// OpenSSL's SHA-256 context, owned by one ``SHA256Digest`` at a time (a copy is made before a shared one changes).
private final class SHA256Context: @unchecked Sendable {
    // Safe: a context is only changed through a digest that holds the sole reference to it.
    private let context: OpaquePointer?

    init() {
        context = EVP_MD_CTX_new()
        if let context { EVP_DigestInit_ex(context, EVP_sha256(), nil) }
    }

    private init(copying other: OpaquePointer?) {
        context = EVP_MD_CTX_new()
        if let context, let other { EVP_MD_CTX_copy_ex(context, other) }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// A context that goes on from where this one is.
    func copy() -> SHA256Context { SHA256Context(copying: context) }

    /// Adds `data` to the message.
    func update(_ data: Data) {
        guard let context else { return }
        data.withUnsafeBytes { bytes in
            if let base = bytes.baseAddress { EVP_DigestUpdate(context, base, bytes.count) }
        }
    }

    /// Ends the message: the 32-byte digest (empty only when OpenSSL could not allocate a context).
    func finish() -> [UInt8] {
        guard let context else { return [] }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
    }
}
#endif
