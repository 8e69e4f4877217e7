import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// The CONNECT exchange as a table: the proxy's answer, fed in pieces, and the step or error it must give.
@Suite("HTTP CONNECT handshake")
struct ProxyConnectHandshakeTests {
    static let proxy = ProxyServer(kind: .http, host: "127.0.0.1", port: 3128, credentials: nil)
    static let withCredentials = ProxyServer(
        kind: .http, host: "127.0.0.1", port: 3128, credentials: .init(user: "me", password: "pw"))

    @Test("The request names the origin's authority, with credentials for the proxy only when it has them")
    func request() {
        let plain = ProxyConnectHandshake(proxy: Self.proxy, host: "example.com", port: 443)
        #expect(
            String(decoding: plain.request, as: UTF8.self)
                == "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        let authenticated = ProxyConnectHandshake(proxy: Self.withCredentials, host: "::1", port: 8443)
        #expect(
            String(decoding: authenticated.request, as: UTF8.self)
                == "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nProxy-Authorization: Basic bWU6cHc=\r\n\r\n")
    }

    /// Pieces of the answer, and the step after each (nil: the last one throws).
    static let opening: [(pieces: [String], steps: [ProxyConnectHandshake.Step])] = [
        (["HTTP/1.1 200 Connection established\r\n\r\n"], [.established]),
        (["HTTP/1.0 200 OK\r\nProxy-Agent: test\r\n\r\n"], [.established]),
        (["HTTP/1.1 2", "00 OK\r", "\n\r\n"], [.needsMore, .needsMore, .established]),
        (["HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 204 No Content\r\n\r\n"], [.needsMore, .established]),
    ]

    @Test("A 2xx answer opens the tunnel, however it is split", arguments: opening.indices)
    func opens(_ index: Int) throws {
        var handshake = ProxyConnectHandshake(proxy: Self.proxy, host: "example.com", port: 443)
        let (pieces, steps) = Self.opening[index]
        for (piece, step) in zip(pieces, steps) {
            #expect(try handshake.received(Array(piece.utf8)) == step)
        }
    }

    @Test("A 407 is proxyAuthenticationRequired, with the challenge kept in the response and the message")
    func authenticationRequired() throws {
        var handshake = ProxyConnectHandshake(proxy: Self.proxy, host: "example.com", port: 443)
        let answer =
            "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"corp\"\r\n"
            + "Content-Length: 0\r\n\r\n"
        let error = #expect(throws: RequestError.self) { try handshake.received(Array(answer.utf8)) }
        #expect(error?.connectionFailure == .proxyAuthenticationRequired)
        #expect(error?.statusCode == 407)
        #expect(error?.response?.headers["Proxy-Authenticate"] == "Basic realm=\"corp\"")
        #expect(
            error?.detail
                == "The proxy 127.0.0.1 port 3128 requires credentials: 407 Proxy Authentication Required "
                + "(Basic realm=\"corp\")")
        var rejected = ProxyConnectHandshake(proxy: Self.withCredentials, host: "example.com", port: 443)
        let second = #expect(throws: RequestError.self) { try rejected.received(Array(answer.utf8)) }
        #expect(second?.detail?.contains("rejected the credentials for user \"me\"") == true)
        #expect(second?.description.contains("pw") == false)
    }

    @Test("A timeout names what the handshake waits for: the answer, then the rest of it")
    func awaited() throws {
        var handshake = ProxyConnectHandshake(proxy: Self.proxy, host: "example.com", port: 443)
        #expect(handshake.awaited == "its answer to CONNECT")
        #expect(try handshake.received(Array("HTTP/1.1 200 Connection established\r\n".utf8)) == .needsMore)
        #expect(handshake.awaited == "the rest of its answer to CONNECT")
    }

    static let socks = ProxyServer(kind: .socks5h, host: "127.0.0.1", port: 1080, credentials: nil)
    static let tls = TLSSettings(.default)

    /// A connection, a status, and whether that status is the proxy's refusal of a request in absolute form.
    static let refusalCases: [(key: ConnectionKey, status: Int, isRefusal: Bool)] = [
        (ConnectionKey(host: "example.com", port: 80, proxy: route(proxy)), 407, true),
        (ConnectionKey(host: "example.com", port: 80, proxy: route(withCredentials)), 407, true),
        (ConnectionKey(host: "example.com", port: 80, proxy: route(proxy)), 401, false),
        (ConnectionKey(host: "example.com", port: 80, proxy: route(proxy)), 200, false),
        // Inside a tunnel (CONNECT or SOCKS5) or straight to the origin, a 407 is the origin's.
        (ConnectionKey(host: "example.com", port: 443, tls: tls, proxy: route(proxy)), 407, false),
        (ConnectionKey(host: "example.com", port: 80, proxy: route(socks)), 407, false),
        (ConnectionKey(host: "example.com", port: 80), 407, false),
    ]

    private static func route(_ server: ProxyServer) -> ProxyRoute {
        ProxyRoute(server: server, proxyTLS: nil, originAddress: nil)
    }

    @Test(
        "A 407 is the proxy's refusal only for a request sent to an HTTP proxy in absolute form",
        arguments: refusalCases.indices)
    func absoluteFormRefusal(_ index: Int) {
        let (key, status, isRefusal) = Self.refusalCases[index]
        let response = Response(status: HTTPStatus(code: status), headers: ["Proxy-Authenticate": "Basic"])
        let error = ProxyServer.refusal(of: response, on: key)
        #expect((error != nil) == isRefusal)
        if let error {
            #expect(error.connectionFailure == .proxyAuthenticationRequired)
            #expect(error.response?.headers["Proxy-Authenticate"] == "Basic")
        }
    }

    static let refusals: [(answer: String, detail: String)] = [
        ("HTTP/1.1 403 Forbidden\r\n\r\n", "The proxy 127.0.0.1 port 3128 refused the tunnel: 403 Forbidden"),
        (
            "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 3\r\n\r\nbad",
            "The proxy 127.0.0.1 port 3128 refused the tunnel: 502 Bad Gateway"
        ),
        (
            "SSH-2.0-OpenSSH\r\n",
            "The proxy 127.0.0.1 port 3128 failed: its answer to CONNECT is not HTTP (invalid status line)"
        ),
        (
            "HTTP/1.1 200 OK\r\n\r\nextra",
            "The proxy 127.0.0.1 port 3128 failed: it sent bytes after its answer to CONNECT"
        ),
    ]

    @Test("Any other answer fails naming the proxy and the status", arguments: refusals.indices)
    func refused(_ index: Int) {
        var handshake = ProxyConnectHandshake(proxy: Self.proxy, host: "example.com", port: 443)
        let (answer, detail) = Self.refusals[index]
        let error = #expect(throws: RequestError.self) { try handshake.received(Array(answer.utf8)) }
        #expect(error?.connectionFailure == .proxyFailed)
        #expect(error?.detail == detail)
    }

    @Test("An answer head larger than 16 KiB fails rather than grows")
    func tooLarge() {
        var handshake = ProxyConnectHandshake(proxy: Self.proxy, host: "example.com", port: 443)
        let answer = "HTTP/1.1 200 OK\r\nX-Filler: " + String(repeating: "a", count: 17 * 1024)
        let error = #expect(throws: RequestError.self) { try handshake.received(Array(answer.utf8)) }
        #expect(error?.connectionFailure == .proxyFailed)
    }
}
