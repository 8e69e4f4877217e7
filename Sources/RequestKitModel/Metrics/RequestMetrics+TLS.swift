extension RequestMetrics {
    /// What a TLS connection negotiated.
    ///
    /// ```swift
    /// if let tls = attempt.tls { print(tls.version, tls.cipherSuite, tls.isSessionResumed) }
    /// ```
    public struct TLS: Sendable, Hashable {
        /// The protocol version, as OpenSSL names it (`TLSv1.3`).
        public var version: String
        /// The cipher suite, as OpenSSL names it (`TLS_AES_256_GCM_SHA384`).
        public var cipherSuite: String
        /// Whether the handshake resumed an earlier session.
        public var isSessionResumed: Bool

        /// Creates the description of a TLS connection.
        ///
        /// ```swift
        /// let tls = RequestMetrics.TLS(version: "TLSv1.3", cipherSuite: "TLS_AES_128_GCM_SHA256", isSessionResumed: false)
        /// ```
        public init(version: String, cipherSuite: String, isSessionResumed: Bool) {
            self.version = version
            self.cipherSuite = cipherSuite
            self.isSessionResumed = isSessionResumed
        }
    }
}
