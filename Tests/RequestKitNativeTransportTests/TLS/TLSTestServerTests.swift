#if os(Linux)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import RequestKitURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The TLS mode of ``TestServer``: its routes over https, session resumption, and URLSession's view of its
/// certificates.
@Suite("TLS TestServer", .wallClock)
struct TLSTestServerTests {
    private let trustingTestCA = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    @Test("The server's URLs say https in the TLS mode")
    func httpsURLs() throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        #expect(server.baseURL.absoluteString == "https://127.0.0.1:\(server.port)")
        #expect(server.url("/get").absoluteString == "https://127.0.0.1:\(server.port)/get")
    }

    @Test("Built-in routes answer over TLS: a large body, a chunked body, a status, a redirect")
    func routesOverTLS() async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        let bytes = try await TLSStreamDriver.get(
            "/bytes/300000?seed=3", port: server.port, configuration: trustingTestCA)
        #expect(bytes.statusLine == "HTTP/1.1 200 OK")
        #expect(bytes.body == TestPayload.randomBytes(count: 300_000, seed: 3))

        let chunked = try await TLSStreamDriver.get(
            "/chunked?chunks=3&size=4", port: server.port, configuration: trustingTestCA)
        #expect(chunked.statusLine == "HTTP/1.1 200 OK")
        #expect(chunked.headers["transfer-encoding"] == "chunked")

        let status = try await TLSStreamDriver.get("/status/418", port: server.port, configuration: trustingTestCA)
        #expect(status.statusLine == "HTTP/1.1 418 I'm a teapot")

        let redirect = try await TLSStreamDriver.get("/redirect/1", port: server.port, configuration: trustingTestCA)
        #expect(redirect.statusLine == "HTTP/1.1 302 Found")
        #expect(server.requests.map(\.path) == ["/bytes/300000", "/chunked", "/status/418", "/redirect/1"])
    }

    @Test("A 2 MB upload crosses TLS intact, written in as many non-blocking writes as the socket takes")
    func upload() async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        let body = TestPayload.randomBytes(count: 2_000_000, seed: 11)
        let exchange = try await TLSStreamDriver.post(
            "/upload", body: body, port: server.port, configuration: trustingTestCA)
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
        let digest = try await offThePool { SHA256Digest.hex(of: body) }
        #expect(String(decoding: exchange.body, as: UTF8.self) == #"{"bytes":2000000,"sha256":"\#(digest)"}"#)
    }

    @Test("Reads smaller than a TLS record leave bytes buffered, which read without waiting for the socket")
    func bufferedBytes() async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        let exchange = try await TLSStreamDriver.get(
            "/bytes/100000?seed=5", port: server.port, configuration: trustingTestCA, readBufferSize: 100)
        #expect(exchange.body == TestPayload.randomBytes(count: 100_000, seed: 5))
        #expect(exchange.bufferedReads > 0)
    }

    @Test("A plain HTTP request to the TLS server fails its handshake: no request is served, the connection closes")
    func plainRequestToTLSServer() async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answer = await connection.readToEnd()
        await connection.close()
        #expect(String(decoding: answer, as: UTF8.self).contains("HTTP/1.1") == false)
        #expect(server.stats.requestCount == 0)
    }

    @Test("Shutting down wakes a connection thread waiting in a handshake for a client that sends nothing")
    func shutdownDuringHandshake() async throws {
        let server = try TestServer { $0.tls = .init() }
        let connection = try RawHTTPConnection(port: server.port)
        #expect(await server.waitUntil { $0.openConnections == 1 })
        await server.shutdown()
        #expect(server.stats.openConnections == 0)
        await connection.close()
    }

    @Test("A reconnect to the same host and port resumes the TLS session")
    func sessionResumption() async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        // A configuration of its own, so no other test's connections share its session table.
        var configuration = trustingTestCA
        configuration.additionalRoots.append(.data(Data(TestCertificate.authorityPEM.utf8)))
        let first = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        let second = try await TLSStreamDriver.get("/get", port: server.port, configuration: configuration)
        #expect(first.isSessionResumed == false)
        #expect(second.isSessionResumed == true)
        #expect(second.statusLine == "HTTP/1.1 200 OK")
        #expect(server.stats.totalConnections == 2)
    }

    @Test(
        "URLSession also refuses an unknown CA and a self-signed certificate, with the same TLS failure",
        arguments: [
            (
                TestCertificate.unknownIssuer, RequestError.TLSFailure.unknownIssuer,
                "is issued by an unknown authority",
                "unable to get local issuer certificate"
            ),
            (.selfSigned, .selfSignedCertificate, "is self-signed and not trusted", "self-signed certificate"),
        ])
    func urlSessionRefuses(
        certificate: TestCertificate, expected: RequestError.TLSFailure, sentence: String, reason: String
    ) async throws {
        let server = try TestServer { $0.tls = .init(certificate: certificate) }
        defer { server.stop() }
        let outcome = await outcomeOf {
            try await Request {
                Url(server.url("/get"))
                Using(URLSessionTransport())
            }.data()
        }
        guard case .failure(let error) = outcome, let error = error as? RequestError else {
            Issue.record("expected a RequestError, got \(outcome)")
            return
        }
        #expect(error.kind == .tls)
        #expect(error.tlsFailure == expected)
        #expect(error.connectionFailure == .secureConnectionFailed)
        #expect(
            error.description
                == "The certificate of 127.0.0.1 port \(server.port) \(sentence) (SSL certificate problem: \(reason))"
                + " for GET https://127.0.0.1:\(server.port)/get")
        #expect(server.stats.requestCount == 0)
    }
}
#endif
