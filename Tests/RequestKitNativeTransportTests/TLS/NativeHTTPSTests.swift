#if os(Linux)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitNativeTransport

/// The verification matrix through the whole request path: `Request { … }.send()` on ``NativeTransport`` against the
/// TLS mode of ``TestServer``, each certificate giving exactly one outcome, and nothing reaching the server when
/// verification fails.
@Suite("Native https: verification through Request.send()", .wallClock)
struct NativeHTTPSTests {
    /// Trusts the test CA on top of the system's roots.
    private static let trustingTestCA = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    private static let clientIdentity = TLSConfiguration.ClientCertificate(
        certificate: .data(Data(TestCertificate.client.certificatePEM.utf8)),
        privateKey: .data(Data(TestCertificate.client.privateKeyPEM.utf8)))

    private func transport(_ tls: TLSConfiguration = trustingTestCA) -> NativeTransport {
        NativeTransport { $0.tls = tls }
    }

    /// The ``RequestError`` of a request that must fail, or `nil` (and a recorded issue) when it did not fail so.
    private func failure(_ url: URL, on transport: NativeTransport) async -> RequestError? {
        do {
            let response = try await Request {
                Url(url)
                Using(transport)
            }.send()
            Issue.record("expected a RequestError, got status \(response.statusCode)")
            return nil
        } catch {
            return error
        }
    }

    @Test("A good chain: the exact response over TLS, and the connection is kept alive for the next request")
    func goodChain() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let transport = transport()
        for _ in 0..<3 {
            let response = try await Request {
                Url(server.url("/status/201"))
                Using(transport)
            }.send()
            #expect(response.statusCode == 201)
        }
        #expect(server.requests.map(\.path) == ["/status/201", "/status/201", "/status/201"])
        #expect(server.requests.first?.header("Host") == "127.0.0.1:\(server.port)")
        #expect(server.stats.totalConnections == 1)
    }

    @Test("A host name is verified against the certificate's DNS names, and sent as Host")
    func goodChainByName() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let url = try #require(URL(string: "https://localhost:\(server.port)/get"))
        let response = try await Request {
            Url(url)
            Using(transport())
        }.send()
        #expect(response.statusCode == 200)
        #expect(server.requests.first?.header("Host") == "localhost:\(server.port)")
    }

    @Test(
        "Each bad certificate is a .tls RequestError with its own sub-code, naming the host, and nothing is sent",
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
        let server = try TestServer { $0.tls = .init(certificate: certificate) }
        defer { server.stop() }
        let error = await failure(server.url("/get"), on: transport())
        #expect(error?.kind == .tls)
        #expect(error?.tlsFailure == expected)
        #expect(
            error?.description
                == "The certificate of 127.0.0.1 port \(server.port) \(sentence) (\(reason)) for GET \(server.url("/get"))"
        )
        #expect(server.stats.requestCount == 0)
    }

    @Test("A certificate for another host name fails as a hostname mismatch naming the host")
    func wrongHostName() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .wrongHost) }
        defer { server.stop() }
        let url = try #require(URL(string: "https://localhost:\(server.port)/get"))
        let error = await failure(url, on: transport())
        #expect(error?.tlsFailure == .hostnameMismatch)
        #expect(
            error?.description
                == "The certificate of localhost port \(server.port) is not valid for \"localhost\" (hostname mismatch) for GET \(url)"
        )
        #expect(server.stats.requestCount == 0)
    }

    @Test("The default configuration (system roots only) does not trust the test CA")
    func defaultDoesNotTrustTestCA() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let error = await failure(server.url("/get"), on: NativeTransport())
        #expect(error?.kind == .tls)
        #expect(error?.tlsFailure == .unknownIssuer)
        #expect(server.stats.requestCount == 0)
    }

    @Test("A matching pin is accepted; a key matching no pin fails naming the server's pin, and nothing is sent")
    func pins() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        var matching = Self.trustingTestCA
        matching.pinnedPublicKeys = ["sha256//" + TestCertificate.validPublicKeyPin]
        let response = try await Request {
            Url(server.url("/get"))
            Using(transport(matching))
        }.send()
        #expect(response.statusCode == 200)
        #expect(server.stats.requestCount == 1)

        var mismatching = Self.trustingTestCA
        mismatching.pinnedPublicKeys = ["sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
        let error = await failure(server.url("/get"), on: transport(mismatching))
        #expect(error?.tlsFailure == .pinnedKeyMismatch)
        #expect(
            error?.description
                == "The public key of 127.0.0.1 port \(server.port) matches no pinned key"
                + " (the server's key is sha256//\(TestCertificate.validPublicKeyPin)) for GET \(server.url("/get"))")
        #expect(server.stats.requestCount == 1)
    }

    @Test("A server that requires a client certificate accepts the test client's, and refuses a client without")
    func clientCertificate() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid, requiresClientCertificate: true) }
        defer { server.stop() }
        var withIdentity = Self.trustingTestCA
        withIdentity.clientCertificate = Self.clientIdentity
        let response = try await Request {
            Url(server.url("/get"))
            Using(transport(withIdentity))
        }.send()
        #expect(response.statusCode == 200)
        #expect(server.stats.requestCount == 1)

        let error = await failure(server.url("/get"), on: transport())
        #expect(error?.kind == .tls)
        #expect(error?.tlsFailure == .clientCertificateRequired)
        #expect(
            error?.description
                == "127.0.0.1 port \(server.port) requires a client certificate (tlsv13 alert certificate required) for GET \(server.url("/get"))"
        )
        #expect(server.stats.requestCount == 1)
    }

    @Test("A reconnect to the same host and port resumes the TLS session")
    func sessionResumption() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let transport = transport()
        for _ in 0..<3 {
            let response = try await Request {
                Url(server.url("/get"))
                Using(transport)
            }.send()
            #expect(response.statusCode == 200)
            transport.closeIdleConnections()
        }
        #expect(server.stats.totalConnections == 3)
        #expect(server.stats.resumedTLSSessions == 2)
    }

    @Test("A server that accepts but never answers the handshake fails within the connect timeout")
    func stalledHandshake() async throws {
        let server = try SilentListener()
        defer { server.close() }
        // Long enough that the TCP connect itself finishes in time on a loaded machine (beside `stress-ng --cpu 4`
        // it once took more than 2 s): the handshake stalls.
        let transport = NativeTransport {
            $0.connectTimeout = 5
            $0.tls = Self.trustingTestCA
        }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/get"))
        let error = await failure(url, on: transport)
        #expect(error?.kind == .timedOut)
        let description = error?.description ?? "no error"
        #expect(
            description.contains("the TLS handshake with 127.0.0.1 port \(server.port) did not finish within 5 s"),
            "\(description)")
    }

    @Test(
        "A body delimited by the close is whole after close_notify, and refused when TLS ends without it",
        arguments: [false, true])
    func closeDelimitedBody(abortsWithoutNotify: Bool) async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        server.route("/until-close") { _ in
            TestResponse(
                body: .raw { writer in
                    try writer.writeRaw(Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\npartial".utf8))
                    if abortsWithoutNotify { writer.close() }
                })
        }
        for streamed in [false, true] {
            let request = Request {
                Url(server.url("/until-close"))
                Using(transport())
            }
            do {
                let body = streamed ? try await request.stream().collect() : try await request.send().body
                #expect(!abortsWithoutNotify, "a body cut without close_notify was taken as whole")
                #expect(body == Data("partial".utf8))
            } catch {
                #expect(abortsWithoutNotify, "\(error)")
                #expect(
                    error.detail
                        == "the server closed the connection without a TLS close_notify, so a body delimited by the "
                        + "close may be truncated", "\(error)")
            }
        }
    }

    @Test("A stalled handshake is bounded by the request's own timeout when it is shorter than the connect timeout")
    func stalledHandshakeRequestTimeout() async throws {
        let server = try SilentListener()
        defer { server.close() }
        let transport = NativeTransport {
            $0.connectTimeout = 600
            $0.tls = Self.trustingTestCA
        }
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/get"))
        let error: RequestError? = await {
            do {
                let response = try await Request {
                    Url(url)
                    // Long enough for a loaded machine to finish the TCP connect: what stalls is the handshake.
                    Timeout(10)
                    Using(transport)
                }.send()
                Issue.record("expected a RequestError, got status \(response.statusCode)")
                return nil
            } catch let error as RequestError {
                return error
            } catch {
                Issue.record("expected a RequestError, got \(error)")
                return nil
            }
        }()
        #expect(error?.kind == .timedOut)
        #expect(
            error?.description.contains(
                "could not finish the TLS handshake with 127.0.0.1 port \(server.port) within the request's timeout "
                    + "of 10 s") == true, "\(String(describing: error))")
    }

    @Test("http and https to one host and port are different connections, and https defaults to port 443")
    func keys() throws {
        let tls = Self.trustingTestCA
        let plain = try HTTP1RequestEncoder.target(of: try #require(URL(string: "http://example.com/a")))
        let settings = TLSSettings(tls)
        let secure = try HTTP1RequestEncoder.target(
            of: try #require(URL(string: "https://example.com/a")), tls: settings)
        let secureOn80 = try HTTP1RequestEncoder.target(
            of: try #require(URL(string: "https://example.com:80/a")), tls: settings)
        let other = try HTTP1RequestEncoder.target(
            of: try #require(URL(string: "https://example.com:8443/a?b")), tls: settings)
        #expect(other.key == ConnectionKey(host: "example.com", port: 8443, tls: settings))
        #expect(other.hostHeader == "example.com:8443")
        #expect(other.path == "/a?b")
        #expect(plain.key == ConnectionKey(host: "example.com", port: 80))
        // Settings made apart compare by their configuration.
        #expect(secure.key == ConnectionKey(host: "example.com", port: 443, tls: TLSSettings(tls)))
        #expect(secure.hostHeader == "example.com")
        #expect(secureOn80.hostHeader == "example.com:80")
        #expect(secureOn80.key != plain.key)
        #expect(secure.key != ConnectionKey(host: "example.com", port: 443, tls: TLSSettings(.default)))
    }

    @Test(
        "Without Using, an https request goes through the native transport: its default trust refuses the test CA",
        .enabled(if: (try? NativeTransport.shared.proxySelection.server(host: "127.0.0.1", isSecure: true)) == nil))
    func defaultIsNative() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let outcome = await outcomeOf { try await Request { Url(server.url("/get")) }.send() }
        guard case .failure(let error as RequestError) = outcome else {
            Issue.record("expected a RequestError, got \(outcome)")
            return
        }
        #expect(error.tlsFailure == .unknownIssuer)
        // URLSession's message would carry libcurl's "SSL certificate problem: " prefix.
        #expect(
            error.description
                == "The certificate of 127.0.0.1 port \(server.port) is issued by an unknown authority"
                + " (unable to get local issuer certificate) for GET \(server.url("/get"))")
        #expect(server.stats.requestCount == 0)
    }

    @Test("Without Using, requests go through the native transport on Linux, whatever proxy the environment names")
    func defaultTransport() {
        #expect(DefaultTransport.choose() as? NativeTransport === NativeTransport.shared)
        #expect(DefaultTransport.shared as? NativeTransport === NativeTransport.shared)
        #expect(NativeTransport.shared.configuration.proxy == .environment)
    }
}
#endif
