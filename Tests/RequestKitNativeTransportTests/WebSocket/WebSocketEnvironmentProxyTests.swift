import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import RequestKitWebSocket
import Testing

/// A WebSocket takes its proxy from the environment as a request does (the transport's one reader of `http_proxy`,
/// `https_proxy`, `all_proxy` and `no_proxy`, with curl's rule: `ws://` as `http://`, `wss://` as `https://`), tried
/// through tinyproxy on 127.0.0.1, which asks for credentials: a socket through it without them is a `407`, so each
/// row shows whether the proxy was used.
@Suite("WebSocket: the environment's proxy variables", .wallClock)
struct WebSocketEnvironmentProxyTests {
    enum Outcome: Equatable {
        case echoed
        case proxyAuthenticationRequired
    }

    private static let trustingTestCA = TLSConfiguration(
        additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])

    /// What a socket to `url` on a transport with `environment` became: echoed, or refused by the proxy.
    private func outcome(_ url: String, environment: [String: String]) async throws -> Outcome {
        let transport = NativeTransport {
            $0.proxy = .environment(environment)
            $0.tls = Self.trustingTestCA
            $0.connectTimeout = 5
        }
        do {
            let socket = try await WebSocket {
                Url(url)
                Using(transport)
                Timeout(20)
            }.connect()
            try await socket.send(.text("hi"))
            var iterator = socket.messages.makeAsyncIterator()
            let answer = try await iterator.next()
            try await socket.close()
            return answer == .text("hi") ? .echoed : .proxyAuthenticationRequired
        } catch let error as RequestError where error.connectionFailure == .proxyAuthenticationRequired {
            #expect(error.statusCode == 407)
            return .proxyAuthenticationRequired
        }
    }

    @Test(
        "http_proxy for ws://, https_proxy for wss://, all_proxy for both, no_proxy excludes, credentials from the URL",
        .enabled(if: RealProxy.isRunnable("tinyproxy")))
    func variables() async throws {
        let proxy = try await RealProxy.tinyproxy(user: "me", password: "secret")
        defer { proxy.stop() }
        let plainServer = try TestServer()
        defer { plainServer.stop() }
        let secureServer = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { secureServer.stop() }
        let plain = "ws://127.0.0.1:\(plainServer.port)/websocket/echo"
        let secure = "wss://127.0.0.1:\(secureServer.port)/websocket/echo"
        let bare = "http://127.0.0.1:\(proxy.port)"
        let authorized = "http://me:secret@127.0.0.1:\(proxy.port)"
        let rows: [(url: String, environment: [String: String], expected: Outcome)] = [
            (plain, ["http_proxy": bare], .proxyAuthenticationRequired),
            (plain, ["HTTP_PROXY": authorized], .echoed),
            (plain, ["https_proxy": bare], .echoed),
            (secure, ["https_proxy": bare], .proxyAuthenticationRequired),
            (secure, ["HTTPS_PROXY": authorized], .echoed),
            (secure, ["http_proxy": bare], .echoed),
            (plain, ["all_proxy": bare], .proxyAuthenticationRequired),
            (secure, ["ALL_PROXY": bare], .proxyAuthenticationRequired),
            (plain, ["http_proxy": bare, "no_proxy": "127.0.0.1"], .echoed),
            (secure, ["all_proxy": bare, "NO_PROXY": "localhost,127.0.0.1"], .echoed),
        ]
        var outcomes: [Outcome] = []
        for row in rows { outcomes.append(try await outcome(row.url, environment: row.environment)) }
        #expect(outcomes == rows.map(\.expected))
        for server in [plainServer, secureServer] {
            #expect(server.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
            #expect(server.requests.allSatisfy { $0.header("Upgrade") == "websocket" })
        }
    }
}
