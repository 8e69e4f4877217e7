import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Choosing a request's proxy")
struct ProxySelectionTests {
    private func server(
        _ environment: [String: String], host: String = "example.com", isSecure: Bool
    ) throws -> String? {
        try ProxySelection(.environment, environment: environment).server(host: host, isSecure: isSecure)?
            .description
    }

    @Test("https requests read https_proxy, then HTTPS_PROXY, then all_proxy and ALL_PROXY; lower case wins")
    func secureVariables() throws {
        #expect(try server(["HTTPS_PROXY": "http://upper:1"], isSecure: true) == "http://upper:1")
        #expect(
            try server(["HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2"], isSecure: true)
                == "http://lower:2")
        #expect(try server(["ALL_PROXY": "socks5h://all:3"], isSecure: true) == "socks5h://all:3")
        #expect(try server(["ALL_PROXY": "http://a:3", "all_proxy": "http://b:4"], isSecure: true) == "http://b:4")
        #expect(try server(["all_proxy": "http://all:3", "HTTPS_PROXY": "http://s:5"], isSecure: true) == "http://s:5")
        #expect(try server(["http_proxy": "http://plain:1"], isSecure: true) == nil)
        #expect(try server(["https_proxy": ""], isSecure: true) == nil)
        #expect(try server(["https_proxy": "", "HTTPS_PROXY": "http://upper:1"], isSecure: true) == "http://upper:1")
    }

    @Test("http requests read http_proxy, and HTTP_PROXY outside a CGI script, then all_proxy")
    func plainVariables() throws {
        #expect(
            try server(["http_proxy": "http://lower:1", "HTTP_PROXY": "http://upper:2"], isSecure: false)
                == "http://lower:1")
        #expect(try server(["HTTP_PROXY": "http://upper:2"], isSecure: false) == "http://upper:2")
        #expect(try server(["HTTP_PROXY": "http://upper:2", "REQUEST_METHOD": "GET"], isSecure: false) == nil)
        #expect(try server(["all_proxy": "http://all:3"], isSecure: false) == "http://all:3")
        #expect(try server(["https_proxy": "http://secure:1"], isSecure: false) == nil)
    }

    @Test("Proxy URLs: schemes, default ports, IPv6 hosts, percent-encoded credentials never printed")
    func urls() throws {
        let cases: [(String, String)] = [
            ("127.0.0.1:3128", "http://127.0.0.1:3128"),
            ("proxy.internal", "http://proxy.internal:1080"),
            ("https://proxy.internal", "https://proxy.internal:443"),
            ("SOCKS5://[::1]:9050/", "socks5://[::1]:9050"),
            ("socks5h://me:s%40cret@127.0.0.1:1080", "socks5h://me:<redacted>@127.0.0.1:1080"),
        ]
        for (text, expected) in cases {
            #expect(try ProxyServer(parsing: text, origin: "test").description == expected)
        }
        let parsed = try ProxyServer(parsing: "http://me:s%40cret@127.0.0.1:3128", origin: "test")
        #expect(parsed.credentials == ProxyConfiguration.Credentials(user: "me", password: "s@cret"))
        #expect(parsed.credentials?.basicAuthorization == "Basic bWU6c0BjcmV0")
        #expect("\(String(describing: parsed.credentials))".contains("s@cret") == false)
        #expect(String(reflecting: parsed.credentials).contains("s@cret") == false)
        let configuration = try ProxyConfiguration(url: "http://me:secret@127.0.0.1:3128", excluding: "localhost")
        #expect(configuration.description == "http://me:<redacted>@127.0.0.1:3128 (not for localhost)")
    }

    @Test("A value that is not a proxy URL fails the requests it applies to, naming the variable")
    func invalidValue() throws {
        for value in ["socks4://127.0.0.1:1080", "http://127.0.0.1:99999", "http://:3128", "http://h:1/path"] {
            let selection = ProxySelection(.environment, environment: ["https_proxy": value])
            #expect(try selection.server(host: "example.com", isSecure: false) == nil)
            let error = #expect(throws: RequestError.self) {
                try selection.server(host: "example.com", isSecure: true)
            }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.problems.first?.message.hasPrefix("the environment variable https_proxy: ") == true)
        }
    }

    @Test("A fixed proxy serves every request but those its exclusions name; none serves none")
    func fixed() throws {
        let selection = ProxySelection(.socks5(host: "127.0.0.1", port: 1081, excluding: ".internal"), environment: [:])
        #expect(try selection.server(host: "example.com", isSecure: true)?.description == "socks5://127.0.0.1:1081")
        #expect(try selection.server(host: "db.internal", isSecure: false) == nil)
        #expect(ProxySelection(.none, environment: ["https_proxy": "http://p:1"]).isEmpty)
        #expect(ProxySelection(.environment, environment: [:]).isEmpty)
    }

    @Test("Keys through different proxies or credentials differ; a tunnel is for TLS origins and SOCKS")
    func keys() throws {
        let url = try #require(URL(string: "http://example.com/a?b"))
        let plain = try HTTP1RequestEncoder.target(of: url)
        let http = ProxyRoute(
            server: try ProxyServer(parsing: "http://me:pw@127.0.0.1:3128", origin: "test"), proxyTLS: nil,
            originAddress: nil)
        let other = ProxyRoute(
            server: try ProxyServer(parsing: "http://you:pw@127.0.0.1:3128", origin: "test"), proxyTLS: nil,
            originAddress: nil)
        let routed = plain.routed(through: http)
        #expect(routed.key != plain.key)
        #expect(routed.key != plain.routed(through: other).key)
        #expect(routed.key.connectHost == "127.0.0.1")
        #expect(routed.key.connectPort == 3128)
        #expect(!routed.key.isTunnelled)
        #expect(routed.path == "http://example.com/a?b")
        #expect(routed.proxyAuthorization == "Basic bWU6cHc=")
        let secure = try HTTP1RequestEncoder.target(
            of: try #require(URL(string: "https://example.com/")), tls: TLSSettings(.default)
        ).routed(through: http)
        #expect(secure.key.isTunnelled)
        #expect(secure.path == "/")
        #expect(secure.proxyAuthorization == nil)
    }

    @Test("Through a proxy, the request's own Proxy-Authorization is dropped; the proxy's goes in absolute form")
    func headBytes() throws {
        var request = URLRequest(url: try #require(URL(string: "http://example.com:8080/x")))
        request.setValue("Basic c3RvbGVu", forHTTPHeaderField: "Proxy-Authorization")
        let head = try HTTP1RequestEncoder.RequestHead(TransferRequest(request))
        let route = ProxyRoute(
            server: try ProxyServer(parsing: "http://me:pw@127.0.0.1:3128", origin: "test"), proxyTLS: nil,
            originAddress: nil)
        let target = try HTTP1RequestEncoder.target(of: try #require(request.url)).routed(through: route)
        let text = String(decoding: try head.bytes(target: target, bodyLength: 0), as: UTF8.self)
        #expect(text.hasPrefix("GET http://example.com:8080/x HTTP/1.1\r\n"))
        #expect(text.contains("Proxy-Authorization: Basic bWU6cHc=\r\n"))
        #expect(!text.contains("c3RvbGVu"))
        #expect(text.contains("Host: example.com:8080\r\n"))
    }
}
