/// A test-only certificate and its private key, for the TLS mode of ``TestServer`` (see ``TestServer/TLS``).
///
/// The fixtures are made by `Scripts/make-test-certificates.sh` with a local test CA (``authorityPEM``); their
/// keys are public and must never protect anything.
///
/// ```swift
/// let server = try TestServer { $0.tls = .init(certificate: .expired) }
/// ```
public struct TestCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The fixture's name, such as `"valid"` or `"expired"`.
    public let name: String
    /// The certificate, as PEM.
    public let certificatePEM: String
    /// The certificate's unencrypted private key, as PEM.
    public let privateKeyPEM: String

    /// Creates a certificate from PEM text.
    ///
    /// ```swift
    /// let mine = TestCertificate(name: "mine", certificatePEM: certificate, privateKeyPEM: key)
    /// ```
    /// - Parameters:
    ///   - name: A name for messages.
    ///   - certificatePEM: The certificate, optionally followed by its intermediates.
    ///   - privateKeyPEM: Its unencrypted private key.
    public init(name: String, certificatePEM: String, privateKeyPEM: String) {
        self.name = name
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// The fixture's name.
    ///
    /// ```swift
    /// print(TestCertificate.valid)  // valid
    /// ```
    public var description: String { name }
}
