#if os(Linux)
import Foundation
import RequestKitModel
import RequestKitSockets
import RequestKitTesting
import Testing
import RequestKitTestSupport

/// The verification matrix at the ``ByteStream`` level: a real `GET /get` through ``TLSByteStream`` against the
/// TLS mode of ``TestServer``, each certificate fixture giving exactly one outcome.
@Suite("TLS verification", .wallClock)
struct TLSVerificationTests {
    /// Trusts the test CA on top of the system's roots.
    private let trustingTestCA = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    private func server(
        _ certificate: TestCertificate, requiringClientCertificate: Bool = false
    ) throws -> TestServer {
        try TestServer {
            $0.tls = .init(certificate: certificate, requiresClientCertificate: requiringClientCertificate)
        }
    }

    /// The TLS error of an exchange that must fail, or `nil` (and a recorded issue) when it did not fail that way.
    private func failure(
        _ certificate: TestCertificate, host: String = "127.0.0.1", configuration: TLSConfiguration? = nil
    ) async throws -> (error: RequestError, server: TestServer)? {
        let server = try server(certificate)
        let outcome = await outcomeOf {
            try await TLSStreamDriver.get(
                "/get", port: server.port, host: host, configuration: configuration ?? trustingTestCA)
        }
        guard case .failure(let error) = outcome, let error = error as? RequestError else {
            Issue.record("expected a RequestError, got \(outcome)")
            return nil
        }
        return (error, server)
    }

    @Test("A chain issued by a trusted extra root is accepted: TLS 1.3, ALPN http/1.1, the exact response")
    func goodChain() async throws {
        let server = try server(.valid)
        defer { server.stop() }
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: trustingTestCA)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
        #expect(exchange.headers["content-type"] == "application/json")
        #expect(exchange.protocolVersion == "TLSv1.3")
        #expect(exchange.applicationProtocol == "http/1.1")
        #expect(server.requests.map(\.path) == ["/get"])
    }

    @Test("A host name is verified against the certificate's DNS names", arguments: ["localhost"])
    func goodChainByName(host: String) async throws {
        let server = try server(.valid)
        defer { server.stop() }
        let exchange = try await TLSStreamDriver.get(
            "/get", port: server.port, host: host, configuration: trustingTestCA)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
        #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
    }

    @Test("Extra roots read from a PEM file are trusted like roots given as data")
    func extraRootFromFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-ca-\(UUID()).pem")
        try Data(TestCertificate.authorityPEM.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try server(.valid)
        defer { server.stop() }
        let configuration = TLSConfiguration(additionalRoots: [.file(file.path)])
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
    }

    @Test("Replacing the trust store with the test CA accepts its certificates")
    func replacedTrustStore() async throws {
        let server = try server(.valid)
        defer { server.stop() }
        let configuration = TLSConfiguration(
            trustsSystemRoots: false, additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
    }

    @Test("The default configuration (system roots only) does not trust the test CA")
    func defaultDoesNotTrustTestCA() async throws {
        let result = try await failure(.valid, configuration: .default)
        guard let (error, server) = result else { return }
        defer { server.stop() }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == .unknownIssuer)
        #expect(
            error.description
                == "The certificate of 127.0.0.1 port \(server.port) is issued by an unknown authority"
                + " (unable to get local issuer certificate)")
        #expect(server.stats.requestCount == 0)
    }

    @Test(
        "Each bad certificate fails the handshake with its own failure, a message naming the host, and nothing sent",
        arguments: [
            (
                TestCertificate.expired, RequestError.TLSFailure.certificateExpired, "has expired",
                "certificate has expired"
            ),
            (.notYetValid, .certificateNotYetValid, "is not valid yet", "certificate is not yet valid"),
            (
                .unknownIssuer, .unknownIssuer, "is issued by an unknown authority",
                "unable to get local issuer certificate"
            ),
            (.selfSigned, .selfSignedCertificate, "is self-signed and not trusted", "self-signed certificate"),
            (.wrongHost, .hostnameMismatch, "is not valid for \"127.0.0.1\"", "IP address mismatch"),
        ])
    func badCertificate(
        certificate: TestCertificate, expected: RequestError.TLSFailure, sentence: String, reason: String
    ) async throws {
        let result = try await failure(certificate)
        guard let (error, server) = result else { return }
        defer { server.stop() }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == expected)
        #expect(error.connectionFailure == .secureConnectionFailed)
        #expect(error.description == "The certificate of 127.0.0.1 port \(server.port) \(sentence) (\(reason))")
        #expect(
            (error.underlyingError as? CustomStringConvertible)?.description.contains("certificate verify failed")
                == true)
        #expect(server.stats.requestCount == 0)
    }

    @Test("A certificate for another host name fails as a hostname mismatch naming the host")
    func wrongHostName() async throws {
        let result = try await failure(.wrongHost, host: "localhost")
        guard let (error, server) = result else { return }
        defer { server.stop() }
        #expect(error.tlsFailure == .hostnameMismatch)
        #expect(
            error.description
                == "The certificate of localhost port \(server.port) is not valid for \"localhost\" (hostname mismatch)"
        )
        #expect(server.stats.requestCount == 0)
    }

    @Test("A matching SPKI SHA-256 pin is accepted, with the chain still verified")
    func pinMatches() async throws {
        let server = try server(.valid)
        defer { server.stop() }
        var configuration = trustingTestCA
        configuration.pinnedPublicKeys = [
            "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=;sha256//" + TestCertificate.validPublicKeyPin
        ]
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
    }

    @Test("A key matching no pin fails before any request byte is sent, naming the server's actual pin")
    func pinMismatch() async throws {
        var configuration = trustingTestCA
        configuration.pinnedPublicKeys = ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
        let result = try await failure(.valid, configuration: configuration)
        guard let (error, server) = result else { return }
        defer { server.stop() }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == .pinnedKeyMismatch)
        #expect(
            error.description
                == "The public key of 127.0.0.1 port \(server.port) matches no pinned key"
                + " (the server's key is sha256//\(TestCertificate.validPublicKeyPin))")
        #expect(server.stats.requestCount == 0)
    }

    @Test("A pin that is not 32 bytes of base64 is an invalid configuration")
    func malformedPin() async throws {
        var configuration = trustingTestCA
        configuration.pinnedPublicKeys = ["sha256//not-base64"]
        let result = try await failure(.valid, configuration: configuration)
        guard let (error, server) = result else { return }
        defer { server.stop() }
        #expect(error.tlsFailure == .invalidConfiguration)
        #expect(
            error.description
                == "The TLS configuration for 127.0.0.1 port \(server.port) is invalid"
                + " (the pin \"sha256//not-base64\" is not sha256// and 32 bytes of base64)")
    }

    @Test("A server that requires a client certificate accepts the test client's")
    func clientCertificateGiven() async throws {
        let server = try server(.valid, requiringClientCertificate: true)
        defer { server.stop() }
        var configuration = trustingTestCA
        configuration.clientCertificate = .init(
            certificate: .data(Data(TestCertificate.client.certificatePEM.utf8)),
            privateKey: .data(Data(TestCertificate.client.privateKeyPEM.utf8)))
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
    }

    @Test("A client certificate and key read from PEM files are presented like ones given as data")
    func clientCertificateFromFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-client-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("client.pem")
        let key = directory.appendingPathComponent("client-key.pem")
        try Data(TestCertificate.client.certificatePEM.utf8).write(to: certificate)
        try Data(TestCertificate.client.privateKeyPEM.utf8).write(to: key)
        let server = try server(.valid, requiringClientCertificate: true)
        defer { server.stop() }
        var configuration = trustingTestCA
        configuration.clientCertificate = .init(certificate: .file(certificate.path), privateKey: .file(key.path))
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
    }

    @Test("A client certificate the server does not trust fails the exchange as clientCertificateRejected")
    func clientCertificateRejected() async throws {
        let server = try server(.valid, requiringClientCertificate: true)
        defer { server.stop() }
        var configuration = trustingTestCA
        configuration.clientCertificate = .init(
            certificate: .data(Data(TestCertificate.unknownIssuer.certificatePEM.utf8)),
            privateKey: .data(Data(TestCertificate.unknownIssuer.privateKeyPEM.utf8)))
        let outcome = await outcomeOf {
            try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        }
        guard case .failure(let error) = outcome, let error = error as? RequestError else {
            Issue.record("expected a RequestError, got \(outcome)")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == .clientCertificateRejected)
        #expect(
            error.description
                == "127.0.0.1 port \(server.port) rejected the client certificate (tlsv1 alert unknown ca)")
        #expect(server.stats.requestCount == 0)
    }

    @Test("A client key that does not match its certificate is an invalid configuration")
    func mismatchedClientKey() async throws {
        var configuration = trustingTestCA
        configuration.clientCertificate = .init(
            certificate: .data(Data(TestCertificate.client.certificatePEM.utf8)),
            privateKey: .data(Data(TestCertificate.valid.privateKeyPEM.utf8)))
        let result = try await failure(.valid, configuration: configuration)
        guard let (error, server) = result else { return }
        defer { server.stop() }
        #expect(error.tlsFailure == .invalidConfiguration)
        #expect(
            error.description
                == "The TLS configuration for 127.0.0.1 port \(server.port) is invalid"
                + " (the client private key does not match the client certificate)")
    }

    @Test("Without a client certificate, a server that requires one fails the exchange as clientCertificateRequired")
    func clientCertificateMissing() async throws {
        let server = try server(.valid, requiringClientCertificate: true)
        defer { server.stop() }
        let outcome = await outcomeOf {
            try await TLSStreamDriver.get("/get", port: server.port, configuration: trustingTestCA)
        }
        guard case .failure(let error) = outcome, let error = error as? RequestError else {
            Issue.record("expected a RequestError, got \(outcome)")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == .clientCertificateRequired)
        #expect(
            error.description
                == "127.0.0.1 port \(server.port) requires a client certificate (tlsv13 alert certificate required)")
        #expect(server.stats.requestCount == 0)
    }

    @Test(
        "The insecure option accepts certificates that fail verification",
        arguments: [TestCertificate.selfSigned, .expired, .wrongHost, .unknownIssuer])
    func insecureOption(certificate: TestCertificate) async throws {
        let server = try server(certificate)
        defer { server.stop() }
        let configuration = TLSConfiguration(insecureSkipVerificationForLocalDevelopmentOnly: true)
        let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
    }

    @Test("Verification is on by default: no configuration value skips it unless asked")
    func verificationIsTheDefault() {
        #expect(TLSConfiguration.default.insecureSkipVerificationForLocalDevelopmentOnly == false)
        #expect(TLSConfiguration().trustsSystemRoots == true)
        #expect(TLSConfiguration().pinnedPublicKeys.isEmpty)
    }

    @Test("A server that speaks only TLS 1.1 fails the handshake as a protocol version failure")
    func oldProtocolVersion() async throws {
        let server = try TestServer { $0.tls = .init(isLegacyTLS11Only: true) }
        defer { server.stop() }
        let outcome = await outcomeOf {
            try await TLSStreamDriver.get("/get", port: server.port, configuration: trustingTestCA)
        }
        guard case .failure(let error) = outcome, let error = error as? RequestError else {
            Issue.record("expected a RequestError, got \(outcome)")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == .protocolVersion)
        #expect(
            error.description
                == "127.0.0.1 port \(server.port) supports no TLS version RequestKit accepts (1.2, 1.3)"
                + " (tlsv1 alert protocol version)")
        #expect(server.stats.requestCount == 0)
    }

    @Test("A plain HTTP server on the port fails the handshake with OpenSSL's reason")
    func plainServer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let outcome = await outcomeOf {
            try await TLSStreamDriver.get("/get", port: server.port, configuration: trustingTestCA)
        }
        guard case .failure(let error) = outcome, let error = error as? RequestError else {
            Issue.record("expected a RequestError, got \(outcome)")
            return
        }
        #expect(error.tlsFailure == .handshakeFailed)
        #expect(
            error.description
                == "The TLS handshake with 127.0.0.1 port \(server.port) failed (wrong version number)")
    }
}

/// The outcome of an async throwing call, for asserting on its error.
func outcomeOf<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
#endif
