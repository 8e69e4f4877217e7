#if canImport(COpenSSL)
import COpenSSL
import Foundation

/// One OpenSSL `SSL_CTX` set up from a ``TLSConfiguration``, shared by every connection made with it, and the TLS
/// sessions kept per host for resumption.
///
/// Thread-safe: after set-up the `SSL_CTX` is only read (OpenSSL allows `SSL_new` on it from any thread), and the
/// session table is guarded by a lock. Contexts live as long as the process (see ``TLSContextCache``).
///
/// ```swift
/// let context = try TLSContextCache.shared.context(for: .default)
/// ```
final class TLSContext: @unchecked Sendable {
    /// The `SSL_CTX`.
    let pointer: OpaquePointer
    /// The configuration it was made from.
    let configuration: TLSConfiguration
    /// The accepted SHA-256 hashes of the server's SubjectPublicKeyInfo; empty for no pinning.
    let pins: Set<Data>
    /// The last session each `host:port` handed out, for resumption; guarded by `lock`.
    private var sessions: [String: OpaquePointer] = [:]
    private let lock = NSLock()

    /// Why a configuration could not be turned into a context, for a ``RequestError/TLSFailure/invalidConfiguration``.
    struct Problem: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// Sets up an `SSL_CTX` for clients: TLS 1.2 minimum, ALPN offering the configuration's protocols, the configured
    /// trust and identity.
    ///
    /// - Throws: ``Problem`` when a PEM cannot be read or the client key does not match its certificate.
    init(configuration: TLSConfiguration) throws {
        OpenSSLLibrary.initialize()
        ERR_clear_error()
        defer { ERR_clear_error() }
        let pins = try Self.pins(configuration.pinnedPublicKeys)
        guard let method = TLS_client_method(), let context = SSL_CTX_new(method) else {
            throw Problem(description: "OpenSSL could not create a TLS context")
        }
        do {
            guard requestkit_SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) == 1 else {
                throw Problem(description: "OpenSSL refused TLS 1.2 as the minimum version")
            }
            requestkit_SSL_CTX_set_client_stream_options(context)
            var protocols: [UInt8] = []
            for name in configuration.applicationProtocols {
                let bytes = Array(name.utf8)
                guard (1...255).contains(bytes.count) else {
                    throw Problem(description: "an ALPN protocol name must be 1 to 255 bytes, not \(bytes.count)")
                }
                protocols += [UInt8(bytes.count)] + bytes
            }
            guard SSL_CTX_set_alpn_protos(context, protocols, UInt32(protocols.count)) == 0 else {
                throw Problem(description: "OpenSSL refused the ALPN protocol list")
            }
            if configuration.insecureSkipVerificationForLocalDevelopmentOnly {
                SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
            } else {
                SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
            }
            if configuration.trustsSystemRoots {
                // A system without a CA bundle still gets a context; verification then fails with unknownIssuer.
                _ = SSL_CTX_set_default_verify_paths(context)
            }
            for root in configuration.additionalRoots {
                try Self.addTrustedRoots(root, to: context)
            }
            if let identity = configuration.clientCertificate {
                try Self.useClientCertificate(identity, in: context)
            }
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        self.pointer = context
        self.configuration = configuration
        self.pins = pins
        SSL_CTX_sess_set_new_cb(context, tlsContextNewSession)
        SSL_CTX_set_ex_data(context, 0, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        for session in sessions.values { SSL_SESSION_free(session) }
        SSL_CTX_free(pointer)
    }

    /// The session to resume for `key` (`host:port`), retained for the caller (`SSL_set_session` takes its own
    /// reference, so the caller frees it after setting it).
    func session(for key: String) -> OpaquePointer? {
        lock.withLock {
            guard let session = sessions[key], SSL_SESSION_up_ref(session) == 1 else { return nil }
            return session
        }
    }

    /// Keeps `session` (whose reference the table takes over) as the one to resume for `key`.
    func store(_ session: OpaquePointer, for key: String) {
        let replaced = lock.withLock {
            defer { sessions[key] = session }
            return sessions[key]
        }
        if let replaced { SSL_SESSION_free(replaced) }
    }

    /// The SHA-256 hashes a list of curl-style pins stands for.
    static func pins(_ texts: [String]) throws -> Set<Data> {
        var pins = Set<Data>()
        for text in texts {
            for item in text.split(separator: ";") {
                let trimmed = item.trimmingCharacters(in: .whitespaces)
                let base64 = trimmed.hasPrefix("sha256//") ? String(trimmed.dropFirst(8)) : trimmed
                guard let hash = Data(base64Encoded: base64), hash.count == 32 else {
                    throw Problem(description: "the pin \"\(trimmed)\" is not sha256// and 32 bytes of base64")
                }
                pins.insert(hash)
            }
        }
        return pins
    }

    private static func addTrustedRoots(_ pem: TLSConfiguration.PEM, to context: OpaquePointer) throws {
        switch pem {
        case .file(let path):
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                throw Problem(description: "no root certificate could be read from \(path)")
            }
        case .data(let data):
            let certificates = try readCertificates(data)
            defer { certificates.forEach { X509_free($0) } }
            guard let store = SSL_CTX_get_cert_store(context) else {
                throw Problem(description: "OpenSSL has no certificate store")
            }
            for certificate in certificates {
                // A root already in the store is not an error.
                _ = X509_STORE_add_cert(store, certificate)
            }
        }
    }

    private static func useClientCertificate(
        _ identity: TLSConfiguration.ClientCertificate, in context: OpaquePointer
    ) throws {
        switch identity.certificate {
        case .file(let path):
            guard SSL_CTX_use_certificate_chain_file(context, path) == 1 else {
                throw Problem(description: "no client certificate could be read from \(path)")
            }
        case .data(let data):
            let certificates = try readCertificates(data)
            defer { certificates.forEach { X509_free($0) } }
            guard let leaf = certificates.first, SSL_CTX_use_certificate(context, leaf) == 1 else {
                throw Problem(description: "OpenSSL did not accept the client certificate")
            }
            for intermediate in certificates.dropFirst() {
                guard requestkit_SSL_CTX_add1_chain_cert(context, intermediate) == 1 else {
                    throw Problem(description: "OpenSSL did not accept the client certificate's chain")
                }
            }
        }
        switch identity.privateKey {
        case .file(let path):
            guard SSL_CTX_use_PrivateKey_file(context, path, SSL_FILETYPE_PEM) == 1 else {
                throw Problem(description: "no private key matching the client certificate could be read from \(path)")
            }
        case .data(let data):
            let key = try withMemoryBIO(data) { PEM_read_bio_PrivateKey($0, nil, nil, nil) }
            defer { EVP_PKEY_free(key) }
            guard let key else { throw Problem(description: "the client private key is not an unencrypted PEM key") }
            guard SSL_CTX_use_PrivateKey(context, key) == 1 else {
                throw Problem(description: "the client private key does not match the client certificate")
            }
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw Problem(description: "the client private key does not match the client certificate")
        }
    }

    /// Every certificate in PEM text, in order; each is the caller's to free.
    static func readCertificates(_ data: Data) throws -> [OpaquePointer] {
        let certificates = try withMemoryBIO(data) { bio -> [OpaquePointer] in
            var certificates: [OpaquePointer] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                certificates.append(certificate)
            }
            return certificates
        }
        // Reading stops with a "no start line" error at the end of the text.
        ERR_clear_error()
        guard !certificates.isEmpty else { throw Problem(description: "the PEM text holds no certificate") }
        return certificates
    }

    private static func withMemoryBIO<T>(_ data: Data, _ body: (OpaquePointer) throws -> T) throws -> T {
        try data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count <= Int(Int32.max),
                let bio = BIO_new_mem_buf(base, Int32(bytes.count))
            else { throw Problem(description: "the PEM text is empty or too large") }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }
}

/// OpenSSL's callback for a new client session (after a TLS 1.2 handshake, or a TLS 1.3 ticket): keeps it for the
/// connection's `host:port`. Returning 1 takes over the session's reference.
private func tlsContextNewSession(_ ssl: OpaquePointer?, _ session: OpaquePointer?) -> Int32 {
    guard let ssl, let session, let contextPointer = SSL_get_SSL_CTX(ssl),
        let contextData = SSL_CTX_get_ex_data(contextPointer, 0), let streamData = SSL_get_ex_data(ssl, 0)
    else { return 0 }
    let context = Unmanaged<TLSContext>.fromOpaque(contextData).takeUnretainedValue()
    let key = Unmanaged<TLSSessionKey>.fromOpaque(streamData).takeUnretainedValue()
    context.store(session, for: key.value)
    return 1
}

/// The `host:port` a connection's sessions are kept under, attached to its `SSL` for the new-session callback.
final class TLSSessionKey {
    let value: String

    init(_ value: String) { self.value = value }
}
#endif
