import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// The SOCKS5 exchange as tables: the proxy's replies in, the bytes to send or the error out.
@Suite("SOCKS5 handshake")
struct SOCKS5HandshakeTests {
    static let proxy = ProxyServer(kind: .socks5h, host: "127.0.0.1", port: 1080, credentials: nil)
    static let withCredentials = ProxyServer(
        kind: .socks5h, host: "127.0.0.1", port: 1080, credentials: .init(user: "me", password: "pw"))

    @Test("Without credentials: greeting, method 0, connect by name, reply with an IPv4 address")
    func noAuthentication() throws {
        var handshake = try SOCKS5Handshake(proxy: Self.proxy, host: "example.com", port: 443)
        #expect(handshake.greeting == [5, 1, 0])
        let connect: [UInt8] = [5, 1, 0, 3, 11] + Array("example.com".utf8) + [0x01, 0xBB]
        #expect(try handshake.received([5, 0]) == .send(connect))
        #expect(try handshake.received([5, 0, 0, 1, 127, 0]) == .needsMore)
        #expect(try handshake.received([0, 1, 0x1F, 0x90]) == .established)
    }

    @Test("With credentials: both methods offered, RFC 1929 user and password, then connect by address")
    func usernamePassword() throws {
        var handshake = try SOCKS5Handshake(proxy: Self.withCredentials, host: "192.0.2.7", port: 80)
        #expect(handshake.greeting == [5, 2, 0, 2])
        #expect(try handshake.received([5, 2]) == .send([1, 2, 0x6D, 0x65, 2, 0x70, 0x77]))
        #expect(try handshake.received([1, 0]) == .send([5, 1, 0, 1, 192, 0, 2, 7, 0, 80]))
        #expect(try handshake.received([5, 0, 0, 3, 4] + Array("host".utf8) + [0, 80]) == .established)
    }

    @Test("A timeout names the step the handshake waits on")
    func awaited() throws {
        var handshake = try SOCKS5Handshake(proxy: Self.withCredentials, host: "example.com", port: 443)
        #expect(handshake.awaited == "its choice of authentication method")
        _ = try handshake.received([5, 2])
        #expect(handshake.awaited == "its answer to the user name and password")
        _ = try handshake.received([1, 0])
        #expect(handshake.awaited == "its answer to the connect request")
    }

    @Test("An IPv6 origin is named by its 16 bytes")
    func ipv6() throws {
        var handshake = try SOCKS5Handshake(proxy: Self.proxy, host: "[::1]", port: 8080)
        let address: [UInt8] = Array(repeating: 0, count: 15) + [1]
        #expect(try handshake.received([5, 0]) == .send([5, 1, 0, 4] + address + [0x1F, 0x90]))
        #expect(try handshake.received([5, 0, 0, 4] + address + [0, 0]) == .established)
    }

    static let replyCodes: [(UInt8, String)] = [
        (1, "general SOCKS server failure"), (2, "connection not allowed by its rules"),
        (3, "network unreachable"), (4, "host unreachable"), (5, "connection refused by the destination"),
        (6, "TTL expired"), (7, "command not supported"), (8, "address type not supported"),
        (9, "unknown SOCKS5 error"),
    ]

    @Test("Each reply code fails with what it means", arguments: replyCodes.indices)
    func replyCode(_ index: Int) throws {
        let (code, meaning) = Self.replyCodes[index]
        var handshake = try SOCKS5Handshake(proxy: Self.proxy, host: "example.com", port: 443)
        _ = try handshake.received([5, 0])
        let error = #expect(throws: RequestError.self) { try handshake.received([5, code, 0, 1, 0, 0, 0, 0, 0, 0]) }
        #expect(error?.connectionFailure == .proxyFailed)
        #expect(error?.detail == "The proxy 127.0.0.1 port 1080 failed: \(meaning) (SOCKS5 reply \(code))")
    }

    @Test("Authentication: required without credentials, or rejected, is proxyAuthenticationRequired")
    func authentication() throws {
        var anonymous = try SOCKS5Handshake(proxy: Self.proxy, host: "example.com", port: 443)
        let required = #expect(throws: RequestError.self) { try anonymous.received([5, 0xFF]) }
        #expect(required?.connectionFailure == .proxyAuthenticationRequired)
        #expect(required?.detail == "The proxy 127.0.0.1 port 1080 requires a user name and password")
        var rejected = try SOCKS5Handshake(proxy: Self.withCredentials, host: "example.com", port: 443)
        _ = try rejected.received([5, 2])
        let error = #expect(throws: RequestError.self) { try rejected.received([1, 1]) }
        #expect(error?.connectionFailure == .proxyAuthenticationRequired)
        #expect(error?.detail == "The proxy 127.0.0.1 port 1080 rejected the credentials for user \"me\"")
    }

    @Test("A peer that is not SOCKS5, or a method not offered, fails naming the proxy")
    func notSOCKS() throws {
        var http = try SOCKS5Handshake(proxy: Self.proxy, host: "example.com", port: 443)
        let error = #expect(throws: RequestError.self) { try http.received(Array("HTTP/1.1 400".utf8)) }
        #expect(error?.detail == "The proxy 127.0.0.1 port 1080 failed: it does not speak SOCKS5 (version byte 72)")
        var unoffered = try SOCKS5Handshake(proxy: Self.proxy, host: "example.com", port: 443)
        #expect(throws: RequestError.self) { try unoffered.received([5, 2]) }
    }

    @Test("A name longer than 255 bytes cannot be sent")
    func longName() {
        #expect(throws: RequestError.self) {
            try SOCKS5Handshake(proxy: Self.proxy, host: String(repeating: "a", count: 256), port: 443)
        }
    }
}
