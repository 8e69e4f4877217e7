import Foundation
import RequestKitModel

#if canImport(CryptoKit)
import CryptoKit
#elseif canImport(COpenSSL)
import COpenSSL
#endif

/// What a ``ResponseCache`` keys a request's stored responses by when the request carries credentials: a SHA-256
/// digest of them (never their values), computed by the system's crypto library (CryptoKit on Apple platforms,
/// OpenSSL 3 on Linux).
///
/// The credentials are the request's fields whose names its ``SensitiveData`` holds secret (`Authorization`,
/// `Cookie`, `Proxy-Authorization`, `X-Api-Key`, and any name with a secret word such as `X-Vendor-Token`): the
/// names lowercased and sorted with their values, so that the same credentials give the same digest whatever the
/// fields' order and case.
///
/// ```swift
/// let digest = CredentialDigest(of: request.headers, sensitiveData: SensitiveData())  // nil without credentials
/// ```
package struct CredentialDigest: Sendable, Hashable {
    /// The digest in lowercase hexadecimal (64 digits).
    package let hex: String

    /// The digest of the credential fields of `headers`; nil when there are none.
    package init?(of headers: HTTPHeaders, sensitiveData: SensitiveData) {
        var credentials: [(name: String, value: String)] = []
        for field in headers.fields where sensitiveData.isSensitive(header: field.name) {
            credentials.append((field.name.lowercased(), field.value))
        }
        guard !credentials.isEmpty else { return nil }
        credentials.sort { $0.name != $1.name ? $0.name < $1.name : $0.value < $1.value }
        var message: [UInt8] = []
        for (name, value) in credentials {
            // Lengths first, so that no two lists of fields make the same message.
            message += Self.bytes(ofLength: name.utf8.count) + name.utf8
            message += Self.bytes(ofLength: value.utf8.count) + value.utf8
        }
        hex = Self.sha256(message).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    private static func bytes(ofLength length: Int) -> [UInt8] {
        withUnsafeBytes(of: UInt64(length).bigEndian) { Array($0) }
    }

    /// SHA-256 of `message`, by the system's crypto library.
    static func sha256(_ message: [UInt8]) -> [UInt8] {
        #if canImport(CryptoKit)
        return Array(SHA256.hash(data: message))
        #elseif canImport(COpenSSL)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // EVP_Digest with SHA-256 fails only when OpenSSL cannot allocate; an empty digest then keys nothing.
        guard EVP_Digest(message, message.count, &digest, &length, EVP_sha256(), nil) == 1 else { return [] }
        return Array(digest.prefix(Int(length)))
        #else
        #error("RequestKit's cache needs SHA-256 from the system: CryptoKit or OpenSSL 3")
        #endif
    }
}
