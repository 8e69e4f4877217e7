extension TestServer {
    /// The TLS mode of a ``TestServer``: the certificate it presents and whether it requires one from the client.
    ///
    /// With TLS, every route is served over `https://` (``TestServer/baseURL`` says so), TLS 1.2 or 1.3, with
    /// ALPN `http/1.1`. Available where RequestKit has its OpenSSL TLS layer (Linux); elsewhere creating such a
    /// server throws.
    ///
    /// ```swift
    /// let server = try TestServer { $0.tls = .init(certificate: .valid, requiresClientCertificate: true) }
    /// ```
    public struct TLS: Sendable, Hashable {
        /// The certificate the server presents; ``TestCertificate/valid`` by default.
        public var certificate: TestCertificate
        /// Whether the handshake fails unless the client presents a certificate issued by the test CA.
        public var requiresClientCertificate: Bool
        /// Whether the server speaks only TLS 1.1 (with OpenSSL's security level 0), to test that a client refuses
        /// protocol versions older than TLS 1.2; `false` (TLS 1.2 and 1.3) by default.
        ///
        /// ```swift
        /// let server = try TestServer { $0.tls = .init(isLegacyTLS11Only: true) }
        /// ```
        public var isLegacyTLS11Only: Bool

        /// Creates a TLS mode.
        ///
        /// ```swift
        /// let tls = TestServer.TLS(certificate: .wrongHost)
        /// ```
        /// - Parameters:
        ///   - certificate: The server's certificate; ``TestCertificate/valid`` by default.
        ///   - requiresClientCertificate: Whether to require a client certificate; `false` by default.
        ///   - isLegacyTLS11Only: Whether to speak only TLS 1.1; `false` by default.
        public init(
            certificate: TestCertificate = .valid, requiresClientCertificate: Bool = false,
            isLegacyTLS11Only: Bool = false
        ) {
            self.certificate = certificate
            self.requiresClientCertificate = requiresClientCertificate
            self.isLegacyTLS11Only = isLegacyTLS11Only
        }
    }

    /// Thrown when a TLS server is asked for where RequestKit has no OpenSSL (Apple platforms).
    struct TLSUnavailable: Error, CustomStringConvertible {
        var description: String { "the TestServer's TLS mode needs OpenSSL, available on Linux" }
    }
}
