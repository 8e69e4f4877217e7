#if canImport(COpenSSL)
import COpenSSL
import Foundation
import RequestKit

/// The server side of the TLS mode: one OpenSSL `SSL_CTX` per ``TestServer``, shared by its connections (so
/// session tickets issued on one connection resume on the next).
///
/// Thread-safe after set-up: the server's loops only call `SSL_new` on it.
///
/// ```swift
/// let context = try ServerTLSContext(TestServer.TLS(certificate: .valid))
/// ```
final class ServerTLSContext: @unchecked Sendable {
    let pointer: OpaquePointer

    /// The method table of the socket BIO (sends never raise SIGPIPE); made once, never freed.
    nonisolated(unsafe) static let socketMethod = requestkit_socket_bio_method_new()

    /// Why the server's TLS could not be set up.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// - Parameter offersHTTP2: Whether ALPN picks `h2` when the client offers it (else `http/1.1`, when offered).
    init(_ tls: TestServer.TLS, offersHTTP2: Bool = false) throws {
        OpenSSLLibrary.initialize()
        ERR_clear_error()
        defer { ERR_clear_error() }
        guard let method = TLS_server_method(), let context = SSL_CTX_new(method) else {
            throw Failure(description: "OpenSSL could not create a server TLS context")
        }
        do {
            if tls.isLegacyTLS11Only {
                SSL_CTX_set_security_level(context, 0)
                guard requestkit_SSL_CTX_set_min_proto_version(context, TLS1_1_VERSION) == 1,
                    requestkit_SSL_CTX_set_max_proto_version(context, TLS1_1_VERSION) == 1
                else { throw Failure(description: "OpenSSL refused TLS 1.1") }
            } else {
                guard requestkit_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
                    throw Failure(description: "OpenSSL refused TLS 1.2 as the minimum version")
                }
            }
            requestkit_SSL_CTX_set_server_stream_options(context)
            if offersHTTP2 { SSL_CTX_set_alpn_select_cb(context, Self.selectApplicationProtocol, nil) }
            let sessionContext = Array("RequestKitTesting".utf8)
            _ = SSL_CTX_set_session_id_context(context, sessionContext, UInt32(sessionContext.count))
            let certificates = try Self.certificates(tls.certificate.certificatePEM)
            defer { certificates.forEach { X509_free($0) } }
            guard let leaf = certificates.first, SSL_CTX_use_certificate(context, leaf) == 1 else {
                throw Failure(description: "OpenSSL did not accept the certificate \(tls.certificate)")
            }
            for intermediate in certificates.dropFirst() {
                _ = requestkit_SSL_CTX_add1_chain_cert(context, intermediate)
            }
            let key = try Self.withBIO(tls.certificate.privateKeyPEM) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
            defer { EVP_PKEY_free(key) }
            guard let key, SSL_CTX_use_PrivateKey(context, key) == 1, SSL_CTX_check_private_key(context) == 1 else {
                throw Failure(description: "the private key of \(tls.certificate) is unusable")
            }
            if tls.requiresClientCertificate {
                let authorities = try Self.certificates(TestCertificate.authorityPEM)
                defer { authorities.forEach { X509_free($0) } }
                for authority in authorities {
                    _ = X509_STORE_add_cert(SSL_CTX_get_cert_store(context), authority)
                    _ = SSL_CTX_add_client_CA(context, authority)
                }
                SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        pointer = context
    }

    /// ALPN's choice for a server that speaks HTTP/2: `h2` when the client offers it, else `http/1.1` when offered,
    /// else no protocol (the handshake goes on without ALPN).
    private static let selectApplicationProtocol:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
            UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
        ) -> Int32 = { _, chosen, chosenLength, offered, offeredLength, _ in
            guard let chosen, let chosenLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
            let list = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
            for wanted in [Array("h2".utf8), Array("http/1.1".utf8)] {
                var index = 0
                while index < list.count {
                    let length = Int(list[index])
                    let end = index + 1 + length
                    guard end <= list.count else { break }
                    if list[(index + 1)..<end].elementsEqual(wanted) {
                        chosen.pointee = offered + index + 1
                        chosenLength.pointee = UInt8(length)
                        return SSL_TLSEXT_ERR_OK
                    }
                    index = end
                }
            }
            return SSL_TLSEXT_ERR_NOACK
        }

    deinit {
        SSL_CTX_free(pointer)
    }

    private static func certificates(_ pem: String) throws -> [OpaquePointer] {
        let certificates = try withBIO(pem) { bio -> [OpaquePointer] in
            var certificates: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) { certificates.append(certificate) }
            return certificates
        }
        ERR_clear_error()
        guard !certificates.isEmpty else { throw Failure(description: "no certificate in the PEM text") }
        return certificates
    }

    private static func withBIO<T>(_ text: String, _ body: (OpaquePointer) throws -> T) throws -> T {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, let bio = BIO_new_mem_buf(base, Int32(clamping: buffer.count)) else {
                throw Failure(description: "the PEM text is empty")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }
}
#endif
