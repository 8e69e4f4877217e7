import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import RequestKitWebSocket
import Testing

/// `WebSocket { … }.connect()` through proxies on 127.0.0.1 to TestServer's echo route: tinyproxy (an HTTP proxy,
/// `CONNECT` with Basic authentication), microsocks (SOCKS5 with a user name and password) and an `https` proxy
/// stand-in. A plain `ws://` socket goes through a `CONNECT` tunnel as `wss://` does (a proxy forwards an upgraded
/// connection only inside one), and the proxy's credentials never reach the origin.
@Suite("WebSocket through proxies", .wallClock)
struct WebSocketProxyTests {
    private static let trustingTestCA = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
    private static let credentials = ProxyConfiguration.Credentials(user: "me", password: "secret")

    private func transport(_ proxy: ProxyConfiguration) -> NativeTransport {
        NativeTransport {
            $0.proxy = proxy
            $0.tls = Self.trustingTestCA
            $0.connectTimeout = 5
        }
    }

    /// Opens a socket to `url` on `transport`, sends `text`, and returns what came back, after a normal closure.
    private func echo(_ text: String, at url: String, on transport: NativeTransport) async throws -> WebSocketMessage? {
        let socket = try await WebSocket {
            Url(url)
            Using(transport)
            Timeout(20)
        }.connect()
        try await socket.send(.text(text))
        var iterator = socket.messages.makeAsyncIterator()
        let answer = try await iterator.next()
        try await socket.close(.normalClosure, reason: "done")
        return answer
    }

    private func failure(at url: String, on transport: NativeTransport) async -> RequestError? {
        do {
            let socket = try await WebSocket {
                Url(url)
                Using(transport)
                Timeout(20)
            }.connect()
            try? await socket.close()
            Issue.record("expected a RequestError, the socket opened")
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "tinyproxy: ws:// and wss:// through CONNECT with the proxy's credentials, which the origin never sees",
        .enabled(if: RealProxy.isRunnable("tinyproxy")))
    func tinyproxy() async throws {
        let proxy = try await RealProxy.tinyproxy(user: "me", password: "secret")
        defer { proxy.stop() }
        let plain = try TestServer()
        defer { plain.stop() }
        let secure = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secure.stop() }
        let transport = transport(.http(host: "127.0.0.1", port: proxy.port, credentials: Self.credentials))
        #expect(
            try await echo("plain", at: "ws://127.0.0.1:\(plain.port)/websocket/echo", on: transport) == .text("plain"))
        #expect(
            try await echo("secure", at: "wss://127.0.0.1:\(secure.port)/websocket/echo", on: transport)
                == .text("secure"))
        for server in [plain, secure] {
            let request = try #require(server.requests.first)
            #expect(request.target == "/websocket/echo")
            #expect(request.header("Upgrade") == "websocket")
            #expect(request.header("Proxy-Authorization") == nil)
        }
    }

    @Test(
        "tinyproxy: a socket without the proxy's credentials is proxyAuthenticationRequired, and the origin sees nothing",
        .enabled(if: RealProxy.isRunnable("tinyproxy")))
    func tinyproxyAuthentication() async throws {
        let proxy = try await RealProxy.tinyproxy(user: "me", password: "secret")
        defer { proxy.stop() }
        let server = try TestServer()
        defer { server.stop() }
        let error = await failure(
            at: "ws://127.0.0.1:\(server.port)/websocket/echo",
            on: transport(.http(host: "127.0.0.1", port: proxy.port)))
        #expect(error?.connectionFailure == .proxyAuthenticationRequired)
        #expect(error?.statusCode == 407)
        #expect(server.stats.totalConnections == 0)
    }

    @Test(
        "microsocks: ws:// and wss:// through SOCKS5 with a user name and password; a wrong password is refused",
        .enabled(if: RealProxy.isRunnable("microsocks")))
    func microsocks() async throws {
        let proxy = try await RealProxy.microsocks(user: "me", password: "secret")
        defer { proxy.stop() }
        let plain = try TestServer()
        defer { plain.stop() }
        let secure = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secure.stop() }
        for configuration in [
            ProxyConfiguration.socks5h(host: "127.0.0.1", port: proxy.port, credentials: Self.credentials),
            .socks5(host: "127.0.0.1", port: proxy.port, credentials: Self.credentials),
        ] {
            let transport = transport(configuration)
            #expect(try await echo("a", at: "ws://127.0.0.1:\(plain.port)/websocket/echo", on: transport) == .text("a"))
            #expect(
                try await echo("b", at: "wss://localhost:\(secure.port)/websocket/echo", on: transport) == .text("b"))
        }
        #expect(secure.requests.map { $0.header("Host") } == ["localhost:\(secure.port)", "localhost:\(secure.port)"])
        let wrong = transport(
            .socks5h(host: "127.0.0.1", port: proxy.port, credentials: .init(user: "me", password: "x")))
        let error = await failure(at: "ws://127.0.0.1:\(plain.port)/websocket/echo", on: wrong)
        #expect(error?.connectionFailure == .proxyAuthenticationRequired)
        #expect(error?.detail == "The proxy 127.0.0.1 port \(proxy.port) rejected the credentials for user \"me\"")
        #expect(plain.requests.count == 2)
    }

    #if canImport(COpenSSL)
    @Test("an https proxy: TLS to the proxy, one CONNECT per socket naming the origin, then ws:// or wss:// inside")
    func httpsProxy() async throws {
        let proxy = try TLSConnectProxy()
        defer { proxy.stop() }
        let plain = try TestServer()
        defer { plain.stop() }
        let secure = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secure.stop() }
        let transport = transport(.https(host: "127.0.0.1", port: proxy.port, credentials: Self.credentials))
        #expect(try await echo("in", at: "ws://127.0.0.1:\(plain.port)/websocket/echo", on: transport) == .text("in"))
        #expect(
            try await echo("twice", at: "wss://localhost:\(secure.port)/websocket/echo", on: transport)
                == .text("twice"))
        #expect(
            proxy.connects == [
                .init(target: "127.0.0.1:\(plain.port)", proxyAuthorization: "Basic bWU6c2VjcmV0"),
                .init(target: "localhost:\(secure.port)", proxyAuthorization: "Basic bWU6c2VjcmV0"),
            ])
        #expect(plain.requests.first?.header("Proxy-Authorization") == nil)
    }
    #endif
}
