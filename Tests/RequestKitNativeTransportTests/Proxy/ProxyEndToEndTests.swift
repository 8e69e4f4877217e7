import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests through proxies on 127.0.0.1, to a ``TestServer`` origin over http and https: tinyproxy (HTTP and
/// CONNECT, with Basic authentication) and microsocks (SOCKS5, with a user name and password), started per test.
@Suite("Proxies, end to end", .wallClock)
struct ProxyEndToEndTests {
    private static let trustingTestCA = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    /// A transport through `proxy` whose connect timeout (the proxy's handshakes included) a busy machine never
    /// reaches; the tests about timeouts make transports of their own.
    private func transport(_ proxy: ProxyConfiguration) -> NativeTransport {
        NativeTransport {
            $0.proxy = proxy
            $0.tls = Self.trustingTestCA
            $0.connectTimeout = 60
        }
    }

    private func send(_ url: URL, on transport: NativeTransport) async throws -> Response {
        try await Request {
            Url(url)
            Using(transport)
        }.send()
    }

    private func failure(_ url: URL, on transport: NativeTransport) async -> RequestError? {
        do {
            let response = try await send(url, on: transport)
            Issue.record("expected a RequestError, got status \(response.statusCode)")
            return nil
        } catch let error as RequestError {
            return error
        } catch {
            Issue.record("expected a RequestError, got \(error)")
            return nil
        }
    }

    @Test("A plain request to an HTTP proxy names the whole URL, and carries the proxy's credentials")
    func absoluteForm() async throws {
        // The test server plays the proxy: it echoes the request target and headers it received.
        let proxy = try TestServer()
        defer { proxy.stop() }
        let transport = transport(
            .http(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "secret")))
        let response = try await send(
            try #require(URL(string: "http://origin.invalid:8080/anything?a=1")), on: transport)
        #expect(response.statusCode == 200)
        let request = try #require(proxy.requests.first)
        #expect(request.target == "http://origin.invalid:8080/anything?a=1")
        #expect(request.header("Host") == "origin.invalid:8080")
        #expect(request.header("Proxy-Authorization") == "Basic bWU6c2VjcmV0")
    }

    @Test("A plain request through an https proxy goes over TLS to the proxy, verified, and its connection is reused")
    func absoluteFormOverTLS() async throws {
        // The stand-in proxy speaks TLS only (a certificate from the test CA for 127.0.0.1): a request sent to it
        // in the clear would never be answered.
        let proxy = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { proxy.stop() }
        proxy.route("/*") { request in
            TestResponse(status: 200, body: .data(Data("via \(request.target)".utf8)))
        }
        let transport = transport(
            .https(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "secret")))
        for path in ["/first", "/second"] {
            let response = try await send(try #require(URL(string: "http://origin.invalid:8080\(path)")), on: transport)
            #expect(response.statusCode == 200)
            #expect(Array(response.body) == Array("via http://origin.invalid:8080\(path)".utf8))
            // The origin's connection is plain: the TLS to the proxy is not the origin's.
            #expect(response.metrics.attempts.last?.tls == nil)
        }
        #expect(
            proxy.requests.map(\.target) == ["http://origin.invalid:8080/first", "http://origin.invalid:8080/second"])
        #expect(proxy.requests.allSatisfy { $0.header("Proxy-Authorization") == "Basic bWU6c2VjcmV0" })
        #expect(proxy.requests.allSatisfy { $0.header("Host") == "origin.invalid:8080" })
        #expect(proxy.stats.totalConnections == 1)

        // Without the test CA the proxy's certificate does not verify: a TLS error naming the proxy.
        let untrusting = NativeTransport {
            $0.proxy = .https(host: "127.0.0.1", port: proxy.port)
            $0.connectTimeout = 60
        }
        let error = await failure(try #require(URL(string: "http://origin.invalid/get")), on: untrusting)
        #expect(error?.kind == .tls)
        #expect(error?.tlsFailure == .unknownIssuer)
        #expect(
            error?.description
                == "The certificate of 127.0.0.1 port \(proxy.port) is issued by an unknown authority"
                + " (unable to get local issuer certificate) for GET http://origin.invalid/get")
        #expect(proxy.requests.count == 2)
    }

    #if canImport(COpenSSL)
    @Test("An https request through an https proxy: TLS to the proxy, CONNECT, TLS to the origin inside, one tunnel")
    func tlsInsideTLS() async throws {
        let proxy = try TLSConnectProxy()
        defer { proxy.stop() }
        let origin = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { origin.stop() }
        origin.route("/hello") { request in
            TestResponse(status: 201, body: .data(Data("hello from \(request.target), twice wrapped".utf8)))
        }
        let transport = transport(
            .https(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "secret")))
        // The origin is named `localhost`: SNI and verification use its name, never the proxy's 127.0.0.1.
        let url = try #require(URL(string: "https://localhost:\(origin.port)/hello"))
        for _ in 0..<2 {
            let response = try await send(url, on: transport)
            #expect(response.statusCode == 201)
            #expect(Array(response.body) == Array("hello from /hello, twice wrapped".utf8))
            #expect(response.metrics.attempts.last?.tls?.version == "TLSv1.3")
        }
        #expect(
            proxy.connects == [.init(target: "localhost:\(origin.port)", proxyAuthorization: "Basic bWU6c2VjcmV0")])
        #expect(origin.requests.map(\.path) == ["/hello", "/hello"])
        #expect(origin.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
        #expect(origin.requests.allSatisfy { $0.header("Host") == "localhost:\(origin.port)" })
        // The second request reused the tunnel: one connection to the proxy, one to the origin.
        #expect(proxy.connections == 1)
        #expect(origin.stats.totalConnections == 1)
    }

    @Test("A large body through an https proxy arrives whole: records of two TLS layers, read as they are buffered")
    func tlsInsideTLSLargeBody() async throws {
        let proxy = try TLSConnectProxy()
        defer { proxy.stop() }
        let origin = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { origin.stop() }
        let transport = transport(.https(host: "127.0.0.1", port: proxy.port))
        let count = 3 * 1024 * 1024 + 17
        let response = try await send(origin.url("/large/\(count)"), on: transport)
        #expect(response.statusCode == 200)
        #expect(response.body.count == count)
        #expect(response.body.enumerated().allSatisfy { $0.element == TestPayload.largeBodyByte(at: $0.offset) })
        #expect(proxy.connects.map(\.target) == ["127.0.0.1:\(origin.port)"])
    }

    @Test("An origin certificate that fails verification through an https proxy is a TLS error naming the origin")
    func tlsInsideTLSVerificationFailure() async throws {
        let proxy = try TLSConnectProxy()
        defer { proxy.stop() }
        let origin = try TestServer { $0.tls = .init(certificate: .wrongHost) }
        defer { origin.stop() }
        let transport = transport(.https(host: "127.0.0.1", port: proxy.port))
        let url = try #require(URL(string: "https://localhost:\(origin.port)/get"))
        let error = await failure(url, on: transport)
        #expect(error?.kind == .tls)
        #expect(error?.tlsFailure == .hostnameMismatch)
        #expect(
            error?.description
                == "The certificate of localhost port \(origin.port) is not valid for \"localhost\" (hostname mismatch)"
                + " for GET \(url.absoluteString)")
        #expect(proxy.connects.map(\.target) == ["localhost:\(origin.port)"])
        #expect(origin.stats.requestCount == 0)
    }
    #endif

    @Test("A 407 to a plain request in absolute form is proxyAuthenticationRequired, buffered and streamed")
    func absoluteFormAuthenticationRequired() async throws {
        // The stand-in proxy asks for credentials on every request it is sent.
        let proxy = try TestServer()
        defer { proxy.stop() }
        proxy.route("/*") { _ in
            TestResponse(
                status: 407, headers: [("Proxy-Authenticate", "Basic realm=\"corp\"")],
                body: .data(Data("credentials, please".utf8)))
        }
        let url = try #require(URL(string: "http://origin.invalid/get"))
        for credentials in [nil, ProxyConfiguration.Credentials(user: "me", password: "wrong")] {
            let transport = transport(.http(host: "127.0.0.1", port: proxy.port, credentials: credentials))
            let reason = credentials == nil ? "requires credentials" : "rejected the credentials for user \"me\""
            let expected =
                "The proxy 127.0.0.1 port \(proxy.port) \(reason): 407 Proxy Authentication Required "
                + "(Basic realm=\"corp\")"
            let buffered = await failure(url, on: transport)
            #expect(buffered?.connectionFailure == .proxyAuthenticationRequired)
            #expect(buffered?.statusCode == 407)
            #expect(buffered?.response?.headers["Proxy-Authenticate"] == "Basic realm=\"corp\"")
            #expect(buffered?.detail == expected)
            #expect(buffered?.description.contains("wrong") == false)
            do {
                let streamed = try await transport.stream(TransferRequest(URLRequest(url: url)))
                Issue.record("expected a RequestError, got status \(streamed.head.statusCode)")
            } catch let error as RequestError {
                #expect(error.connectionFailure == .proxyAuthenticationRequired)
                #expect(error.response?.headers["Proxy-Authenticate"] == "Basic realm=\"corp\"")
                #expect(error.detail == expected)
            }
        }
        #expect(proxy.requests.map(\.target) == Array(repeating: "http://origin.invalid/get", count: 4))
    }

    @Test("A 407 from an origin reached directly is a response like any other")
    func originAuthenticationRequired() async throws {
        let origin = try TestServer()
        defer { origin.stop() }
        origin.route("/login") { _ in TestResponse(status: 407, headers: [("Proxy-Authenticate", "Basic")]) }
        let response = try await NativeTransport { $0.proxy = .none }.send(
            TransferRequest(URLRequest(url: origin.url("/login"))))
        #expect(response.statusCode == 407)
    }

    @Test("A proxy that stalls before opening the tunnel times out naming the proxy and the step, not the origin")
    func stalledTunnel() async throws {
        let proxy = try SilentListener()
        defer { proxy.close() }
        let place = "the proxy 127.0.0.1 port \(proxy.port)"
        // Long enough that the TCP connect itself finishes in time on a loaded machine: the step after it is
        // the one that stalls. The three cases run at once.
        let cases: [(ProxyConfiguration, String)] = [
            (
                .http(host: "127.0.0.1", port: proxy.port),
                "the CONNECT to origin.invalid port 443 through \(place) (waiting for its answer to CONNECT) "
                    + "did not finish within 2 s"
            ),
            (
                .https(host: "127.0.0.1", port: proxy.port),
                "the TLS handshake with \(place) (for origin.invalid port 443) did not finish within 2 s"
            ),
            (
                .socks5h(host: "127.0.0.1", port: proxy.port),
                "the SOCKS5 handshake for origin.invalid port 443 with \(place) (waiting for its choice of "
                    + "authentication method) did not finish within 2 s"
            ),
        ]
        let url = try #require(URL(string: "https://origin.invalid/get"))
        let errors = await withTaskGroup(of: (Int, RequestError?).self) { group in
            for (index, (configuration, _)) in cases.enumerated() {
                let transport = NativeTransport {
                    $0.proxy = configuration
                    $0.tls = Self.trustingTestCA
                    $0.connectTimeout = 2
                }
                group.addTask { (index, await self.failure(url, on: transport)) }
            }
            var errors = [Int: RequestError?]()
            for await (index, error) in group { errors[index] = error }
            return errors
        }
        for (index, (_, message)) in cases.enumerated() {
            let error = errors[index] ?? nil
            #expect(error?.kind == .timedOut)
            #expect(error?.description.contains(message) == true, "\(String(describing: error))")
            #expect(error?.description.contains("TLS handshake with origin.invalid") == false)
        }
    }

    @Test("A connection to a proxy that the request's timeout cuts short names the proxy, not the origin")
    func requestTimeoutWhileConnectingToProxy() async throws {
        let proxy = try FullBacklogListener()
        defer { proxy.close() }
        let transport = NativeTransport {
            $0.proxy = .http(host: "127.0.0.1", port: proxy.port)
            $0.connectTimeout = 60
        }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://origin.invalid/get")
                Timeout(1)
                Using(transport)
            }.send()
        }
        #expect(error.kind == .timedOut)
        #expect(
            error.detail
                == "could not connect to proxy 127.0.0.1 port \(proxy.port) (the http proxy for origin.invalid port 80) "
                + "within the request's timeout of 1 s")
    }

    @Test("A redirect to another origin follows the proxy rules of the new origin")
    func redirectToExcludedOrigin() async throws {
        // The stand-in proxy answers the proxied request with a redirect to an origin the exclusions name.
        let proxy = try TestServer()
        defer { proxy.stop() }
        let origin = try TestServer()
        defer { origin.stop() }
        let transport = transport(.http(host: "127.0.0.1", port: proxy.port, excluding: "localhost"))
        let target = "http://localhost:\(origin.port)/status/203"
        let start = try #require(URL(string: "http://origin.invalid/redirect-to?url=\(target)"))
        let response = try await send(start, on: transport)
        #expect(response.statusCode == 203)
        #expect(proxy.requests.map(\.target) == ["http://origin.invalid/redirect-to?url=\(target)"])
        #expect(origin.requests.map(\.target) == ["/status/203"])
    }

    @Test("An unreachable proxy fails as connectionRefused naming the proxy, not the origin")
    func unreachable() async throws {
        let port = try RealProxy.freePort()
        let transport = transport(.http(host: "127.0.0.1", port: port))
        let error = await failure(try #require(URL(string: "https://origin.invalid/")), on: transport)
        #expect(error?.connectionFailure == .connectionRefused)
        #expect(
            error?.detail
                == "Connection refused by 127.0.0.1 port \(port) (the http proxy for origin.invalid port 443)")
    }

    @Test(
        "tinyproxy: http in absolute form and https through CONNECT, a tunnel kept for its origin",
        .enabled(if: RealProxy.isRunnable("tinyproxy")))
    func tinyproxy() async throws {
        let proxy = try await RealProxy.tinyproxy(user: "me", password: "secret")
        defer { proxy.stop() }
        let plain = try TestServer()
        defer { plain.stop() }
        let secure = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secure.stop() }
        let transport = transport(
            .http(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "secret")))
        let response = try await send(plain.url("/status/201"), on: transport)
        #expect(response.statusCode == 201)
        #expect(plain.requests.first?.header("Proxy-Authorization") == nil)
        for _ in 0..<3 {
            let response = try await send(secure.url("/status/202"), on: transport)
            #expect(response.statusCode == 202)
            // What TLS with the origin negotiated, through the tunnel.
            #expect(response.metrics.attempts.last?.tls?.version == "TLSv1.3")
        }
        #expect(secure.requests.map(\.path) == ["/status/202", "/status/202", "/status/202"])
        #expect(secure.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
        #expect(secure.stats.totalConnections == 1)
    }

    @Test(
        "tinyproxy: CONNECT or a plain request without credentials is proxyAuthenticationRequired with the challenge",
        .enabled(if: RealProxy.isRunnable("tinyproxy")))
    func tinyproxyAuthentication() async throws {
        let proxy = try await RealProxy.tinyproxy(user: "me", password: "secret")
        defer { proxy.stop() }
        let secure = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secure.stop() }
        let error = await failure(secure.url("/get"), on: transport(.http(host: "127.0.0.1", port: proxy.port)))
        #expect(error?.connectionFailure == .proxyAuthenticationRequired)
        #expect(error?.statusCode == 407)
        #expect(error?.response?.headers["Proxy-Authenticate"]?.hasPrefix("Basic") == true)
        let wrong = transport(
            .http(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "wrong")))
        let rejected = await failure(secure.url("/get"), on: wrong)
        // tinyproxy 1.11 answers wrong credentials with a 401, not a 407: a refusal naming the proxy and status.
        #expect(rejected?.connectionFailure == .proxyFailed)
        #expect(rejected?.detail == "The proxy 127.0.0.1 port \(proxy.port) refused the tunnel: 401 Unauthorized")
        #expect(rejected?.description.contains("wrong") == false)
        #expect(secure.stats.totalConnections == 0)
        // Plain http in absolute form: tinyproxy's 407 is the same typed error, with its challenge.
        let plain = try TestServer()
        defer { plain.stop() }
        let absolute = await failure(plain.url("/get"), on: transport(.http(host: "127.0.0.1", port: proxy.port)))
        #expect(absolute?.connectionFailure == .proxyAuthenticationRequired)
        #expect(absolute?.response?.headers["Proxy-Authenticate"] == "Basic realm=\"Tinyproxy\"")
        #expect(
            absolute?.detail
                == "The proxy 127.0.0.1 port \(proxy.port) requires credentials: 407 Proxy Authentication Required "
                + "(Basic realm=\"Tinyproxy\")")
        #expect(plain.stats.totalConnections == 0)
    }

    @Test(
        "microsocks: socks5h and socks5 with a user name and password, over http and https; a wrong one refused",
        .enabled(if: RealProxy.isRunnable("microsocks")))
    func microsocks() async throws {
        let proxy = try await RealProxy.microsocks(user: "me", password: "secret")
        defer { proxy.stop() }
        let plain = try TestServer()
        defer { plain.stop() }
        let secure = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secure.stop() }
        let credentials = ProxyConfiguration.Credentials(user: "me", password: "secret")
        for proxyConfiguration in [
            ProxyConfiguration.socks5h(host: "127.0.0.1", port: proxy.port, credentials: credentials),
            .socks5(host: "127.0.0.1", port: proxy.port, credentials: credentials),
        ] {
            let transport = transport(proxyConfiguration)
            #expect(try await send(plain.url("/status/201"), on: transport).statusCode == 201)
            let byName = try #require(URL(string: "https://localhost:\(secure.port)/status/202"))
            #expect(try await send(byName, on: transport).statusCode == 202)
        }
        #expect(secure.requests.map { $0.header("Host") } == ["localhost:\(secure.port)", "localhost:\(secure.port)"])
        let wrong = transport(
            .socks5h(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "x")))
        // microsocks answers a wrong password with RFC 1929 status 2 (not allowed).
        let error = await failure(plain.url("/get"), on: wrong)
        #expect(error?.connectionFailure == .proxyAuthenticationRequired)
        #expect(error?.detail == "The proxy 127.0.0.1 port \(proxy.port) rejected the credentials for user \"me\"")
        #expect(error?.description.contains("\"x\"") == false)
        let anonymous = await failure(plain.url("/get"), on: transport(.socks5h(host: "127.0.0.1", port: proxy.port)))
        #expect(anonymous?.connectionFailure == .proxyAuthenticationRequired)
        #expect(anonymous?.detail == "The proxy 127.0.0.1 port \(proxy.port) requires a user name and password")
        #expect(plain.requests.count == 2)
    }
}
