import Foundation

/// How the native transport's TLS layer trusts servers and presents itself: trust roots, pinned keys, a client
/// certificate.
///
/// The default trusts the system's root certificates, found as OpenSSL finds them (honouring `SSL_CERT_FILE` and
/// `SSL_CERT_DIR`, as curl and Python do), verifies the certificate chain and the host name or IP address, and
/// negotiates TLS 1.2 or 1.3, sending the host name by SNI. By ALPN the native transport offers `h2` and `http/1.1`
/// (`http/1.1` alone when its HTTP/2 is disabled, and for WebSocket connections).
///
/// ```swift
/// var tls = TLSConfiguration()
/// tls.additionalRoots = [.file("/etc/company/root-ca.pem")]   // also trust the company CA
/// tls.pinnedPublicKeys = ["sha256//ITZjnK5Pv93jamdjxhDQ1SY9UQaCtnOpgvR7gW2IAxg="]
/// ```
///
/// The TLS layer runs on Linux, over the system OpenSSL 3; on Apple platforms the native transport hands
/// `https://` to URLSession, which uses the system's own trust settings.
public struct TLSConfiguration: Sendable, Hashable {
    /// PEM text (one or more `-----BEGIN …-----` blocks), from a file or in memory.
    ///
    /// ```swift
    /// let fromFile = TLSConfiguration.PEM.file("/etc/ssl/private/client.pem")
    /// let inMemory = TLSConfiguration.PEM.data(Data(pemText.utf8))
    /// ```
    public enum PEM: Sendable, Hashable {
        /// The PEM file at this path, read when the first connection with the configuration is made.
        case file(String)
        /// PEM text in memory.
        case data(Data)
    }

    /// A certificate and its private key, for servers that ask the client to prove who it is (mutual TLS).
    ///
    /// ```swift
    /// let identity = TLSConfiguration.ClientCertificate(
    ///     certificate: .file("client.pem"), privateKey: .file("client-key.pem"))
    /// ```
    public struct ClientCertificate: Sendable, Hashable {
        /// The client certificate, optionally followed by the intermediate certificates that issued it.
        public var certificate: PEM
        /// The certificate's private key, unencrypted.
        public var privateKey: PEM

        /// Creates a client identity from a certificate (chain) and its private key.
        ///
        /// ```swift
        /// let identity = TLSConfiguration.ClientCertificate(certificate: .data(chain), privateKey: .data(key))
        /// ```
        /// - Parameters:
        ///   - certificate: The certificate, then any intermediates, as PEM.
        ///   - privateKey: The unencrypted private key as PEM.
        public init(certificate: PEM, privateKey: PEM) {
            self.certificate = certificate
            self.privateKey = privateKey
        }
    }

    /// Whether the system's root certificates are trusted; `true` by default. Set it to `false`, with
    /// ``additionalRoots``, to replace the trust store with your own roots.
    ///
    /// ```swift
    /// var tls = TLSConfiguration(trustsSystemRoots: false, additionalRoots: [.file("private-ca.pem")])
    /// ```
    public var trustsSystemRoots: Bool
    /// Root certificates trusted in addition to the system's (or instead of them, see ``trustsSystemRoots``).
    ///
    /// ```swift
    /// tls.additionalRoots.append(.data(Data(caPEM.utf8)))
    /// ```
    public var additionalRoots: [PEM]
    /// SHA-256 hashes of the server's public key (its DER SubjectPublicKeyInfo), base64, as curl's
    /// `--pinnedpubkey` takes them (`sha256//…`, several joined with `;`). When not empty, the server's key must
    /// match one of them, in addition to the chain verification.
    ///
    /// ```swift
    /// tls.pinnedPublicKeys = ["sha256//ITZjnK5Pv93jamdjxhDQ1SY9UQaCtnOpgvR7gW2IAxg="]
    /// ```
    public var pinnedPublicKeys: [String]
    /// The certificate and key presented when the server asks for one; none by default.
    ///
    /// ```swift
    /// tls.clientCertificate = .init(certificate: .file("client.pem"), privateKey: .file("client-key.pem"))
    /// ```
    public var clientCertificate: ClientCertificate?
    /// Accepts any certificate for any host: no chain, date or name verification. **Only for local development**
    /// against a server with a throwaway certificate; never the default, never for production. Pinned keys are
    /// still checked.
    ///
    /// ```swift
    /// #if DEBUG
    /// tls.insecureSkipVerificationForLocalDevelopmentOnly = true
    /// #endif
    /// ```
    public var insecureSkipVerificationForLocalDevelopmentOnly: Bool
    /// The application protocols offered by ALPN, most preferred first: `http/1.1` alone until a transport speaks
    /// HTTP/2 over the connections it makes (`["h2", "http/1.1"]` offers both). Each name is 1 to 255 bytes.
    package var applicationProtocols = ["http/1.1"]

    /// Creates a configuration; the defaults trust the system's roots and verify everything.
    ///
    /// ```swift
    /// let tls = TLSConfiguration(additionalRoots: [.file("test-ca.pem")])
    /// ```
    /// - Parameters:
    ///   - trustsSystemRoots: Whether to trust the system's root certificates; `true` by default.
    ///   - additionalRoots: More trusted roots; none by default.
    ///   - pinnedPublicKeys: Accepted public key hashes, `sha256//BASE64`; none (no pinning) by default.
    ///   - clientCertificate: The identity for mutual TLS; none by default.
    ///   - insecureSkipVerificationForLocalDevelopmentOnly: Skips certificate verification; `false` by default.
    public init(
        trustsSystemRoots: Bool = true,
        additionalRoots: [PEM] = [],
        pinnedPublicKeys: [String] = [],
        clientCertificate: ClientCertificate? = nil,
        insecureSkipVerificationForLocalDevelopmentOnly: Bool = false
    ) {
        self.trustsSystemRoots = trustsSystemRoots
        self.additionalRoots = additionalRoots
        self.pinnedPublicKeys = pinnedPublicKeys
        self.clientCertificate = clientCertificate
        self.insecureSkipVerificationForLocalDevelopmentOnly = insecureSkipVerificationForLocalDevelopmentOnly
    }

    /// The default: the system's roots, full verification, no pinning, no client certificate.
    ///
    /// ```swift
    /// let tls = TLSConfiguration.default
    /// ```
    public static let `default` = TLSConfiguration()

    /// Hashes the settings' shape only (flags and counts), not certificate paths, data or pins: connection pools
    /// look their hosts up by a key holding the configuration on every request, and equal configurations still hash
    /// alike (`==` compares everything).
    ///
    /// ```swift
    /// let contexts: Set<TLSConfiguration> = [.default, TLSConfiguration(additionalRoots: [.file("ca.pem")])]
    /// ```
    public func hash(into hasher: inout Hasher) {
        hasher.combine(trustsSystemRoots)
        hasher.combine(additionalRoots.count)
        hasher.combine(pinnedPublicKeys.count)
        hasher.combine(clientCertificate != nil)
        hasher.combine(insecureSkipVerificationForLocalDevelopmentOnly)
        hasher.combine(applicationProtocols.count)
    }
}
