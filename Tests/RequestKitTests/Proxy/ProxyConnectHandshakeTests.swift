import Foundation
import Testing

@testable import RequestKit
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
