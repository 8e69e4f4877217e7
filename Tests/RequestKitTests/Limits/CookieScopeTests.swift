import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Cookie scope per RFC 6265", .wallClock)
struct CookieScopeTests {
    func names(_ jar: CookieJar, _ url: String) -> [String] {
        URL(string: url).map { jar.cookies(for: $0).map(\.name).sorted() } ?? []
    }

    @Test("An IP host gets host-only cookies; a Domain other than the address is ignored")
    func ipHosts() throws {
        let jar = CookieJar()
        jar.store(
            ResponseCookie.parseAll("a=1; Domain=0.0.1, b=2; Domain=127.0.0.1, c=3, d=4; Domain=.0.0.1"),
            from: try #require(URL(string: "http://127.0.0.1:8080/")))
        #expect(names(jar, "http://127.0.0.1:9/") == ["b", "c"])
        #expect(names(jar, "http://10.0.0.1/") == [])
        #expect(names(jar, "http://1.127.0.0.1/") == [])
        let v6 = CookieJar()
        v6.store(ResponseCookie.parseAll("e=5; Domain=1, f=6"), from: try #require(URL(string: "http://[::1]:80/")))
        #expect(names(v6, "http://[::1]/") == ["f"])
    }

    @Test("A Domain must domain-match the host and have two labels")
    func domains() throws {
        let jar = CookieJar()
        let url = try #require(URL(string: "http://api.example.test/"))
        jar.store(
            ResponseCookie.parseAll(
                "a=1; Domain=com, b=2; Domain=test, c=3; Domain=example.test, d=4; Domain=other.test, "
                    + "e=5; Domain=xample.test, f=6; Domain=api.example.test, g=7"),
            from: url)
        #expect(names(jar, "http://api.example.test/") == ["c", "f", "g"])
        #expect(names(jar, "http://www.example.test/") == ["c"])
        #expect(names(jar, "http://other.test/") == [])
        let local = CookieJar()
        let localhost = try #require(URL(string: "http://localhost/"))
        local.store(ResponseCookie.parseAll("h=8; Domain=localhost"), from: localhost)
        #expect(names(local, "http://localhost/") == ["h"])
        #expect(names(local, "http://sub.localhost/") == [])
    }

    @Test("Secure cookies are neither stored from nor sent to plain http; expiry is honoured")
    func secureAndExpiry() throws {
        let jar = CookieJar()
        let http = try #require(URL(string: "http://example.test/"))
        let https = try #require(URL(string: "https://example.test/"))
        jar.store(ResponseCookie.parseAll("a=1; Secure, b=2"), from: http)
        #expect(names(jar, "https://example.test/") == ["b"])
        jar.store(ResponseCookie.parseAll("c=3; Secure"), from: https)
        #expect(names(jar, "https://example.test/") == ["b", "c"])
        #expect(names(jar, "http://example.test/") == ["b"])
        jar.store(ResponseCookie.parseAll("b=gone; Max-Age=0, d=4; Expires=Thu, 01 Jan 1970 00:00:01 GMT"), from: https)
        #expect(names(jar, "https://example.test/") == ["c"])
        jar.store(
            [ResponseCookie(name: "e", value: "5", expires: Date(timeIntervalSinceNow: 3600), maxAge: -1)], from: https)
        #expect(names(jar, "https://example.test/") == ["c"])
    }

    @Test("On the wire, a jar keeps only what the host may set and sends it back", arguments: WireTransport.all)
    func onTheWire(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/set") { _ in
            TestResponse(
                status: 200,
                headers: [
                    ("Set-Cookie", "wide=1; Domain=0.0.1; Path=/"), ("Set-Cookie", "tld=2; Domain=com; Path=/"),
                    ("Set-Cookie", "secure=3; Secure; Path=/"), ("Set-Cookie", "plain=4; Path=/"),
                ])
        }
        let jar = CookieJar()
        let client = Client(baseURL: server.url("/")) { configuration in
            configuration.transport = transport.transport
            configuration.cookieJar = jar
        }
        _ = try await client.send(Request { Path("set") })
        _ = try await client.send(Request { Path("anything") })
        #expect(jar.allCookies.map(\.name) == ["plain"])
        #expect(server.requests.last?.header("Cookie") == "plain=4")
    }
}
