import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Cookies", .wallClock)
struct CookieTests {
    @Test("Cookie and Cookies components join into one Cookie header", arguments: WireTransport.all)
    func explicitCookies(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        _ = try await Request {
            Url(server.url("/anything"))
            Using(transport.transport)
            Cookie("a", "1")
            Cookies(["c": "3", "b": "2"])
        }.send()
        let received = try #require(server.requests.last)
        #expect(received.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value) == ["a=1; b=2; c=3"])
        let invalid = #expect(throws: RequestError.self) {
            try Request {
                Url("http://h.test"); Cookie("a", "x;y")
            }.urlRequest()
        }
        #expect(invalid?.problems.map(\.kind) == [.invalidComponent])
    }

    @Test("Every Set-Cookie of a response is parsed, whatever the platform merged", arguments: WireTransport.all)
    func responseCookies(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/login") { _ in
            TestResponse(
                status: 200,
                headers: [
                    ("Set-Cookie", "session=abc; Path=/; HttpOnly"),
                    ("Set-Cookie", "theme=dark; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Secure"),
                ])
        }
        let response = try await Request { Url(server.url("/login")) }.send()
        let cookies = response.cookies
        #expect(cookies.map(\.name) == ["session", "theme"])
        #expect(cookies.first?.isHTTPOnly == true)
        #expect(cookies.first?.path == "/")
        #expect(cookies.last?.isSecure == true)
        #expect(cookies.last?.expires == Date(timeIntervalSince1970: 2_139_722_880))
    }

    @Test("Joined Set-Cookie values split between cookies, not inside Expires dates")
    func parseAll() {
        let cookies = ResponseCookie.parseAll(
            "a=1; Path=/, b=\"two\"; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Max-Age=60; Domain=.Example.com, c=3")
        #expect(cookies.map(\.description) == ["a=1", "b=two", "c=3"])
        #expect(cookies[1].maxAge == 60)
        #expect(cookies[1].domain == "example.com")
        #expect(ResponseCookie(setCookie: "novalue") == nil)
    }

    @Test(
        "A cookie jar stores Set-Cookie and sends matching cookies back, by path and expiry",
        arguments: WireTransport.all)
    func cookieJar(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/login") { _ in
            TestResponse(
                status: 200,
                headers: [("Set-Cookie", "session=abc; Path=/"), ("Set-Cookie", "admin=yes; Path=/admin")])
        }
        server.route("/logout") { _ in
            TestResponse(status: 200, headers: [("Set-Cookie", "session=; Max-Age=0; Path=/")])
        }
        let jar = CookieJar()
        let client = Client(baseURL: server.url("/")) {
            $0.transport = transport.transport
            $0.cookieJar = jar
        }
        _ = try await client.send(Request { Path("login") })
        _ = try await client.send(
            Request {
                Path("anything"); Cookie("own", "1")
            })
        #expect(server.requests.last?.header("Cookie") == "own=1; session=abc")
        _ = try await client.send(Request { Path("admin", "panel") })
        #expect(server.requests.last?.header("Cookie") == "admin=yes; session=abc")
        _ = try await client.send(Request { Path("logout") })
        _ = try await client.send(Request { Path("anything") })
        #expect(server.requests.last?.header("Cookie") == nil)
        #expect(jar.allCookies.map(\.name) == ["admin"])
        let other = try transport.server()
        defer { other.stop() }
        #expect(jar.cookies(for: other.url("/admin")).map(\.name) == ["admin"])  // same host, other port
        #expect(jar.cookies(for: try #require(URL(string: "http://example.test/admin"))).isEmpty)
    }
}

@Suite("Cookies along redirects", .wallClock)
struct CookieRedirectTests {
    @Test(
        "A cookie set by a redirect response is stored and sent to the redirect's target", arguments: WireTransport.all)
    func cookieSetDuringRedirect(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let jar = CookieJar()
        let client = Client(baseURL: server.url("/")) {
            $0.transport = transport.transport
            $0.cookieJar = jar
        }
        let json = try await client.json(
            Request {
                Path("cookies", "set"); Query("flavour", value: "oat"); Cookie("own", "1")
            })
        #expect(json == ["cookies": ["flavour": "oat", "own": "1"]])
        #expect(server.requests.last?.header("Cookie") == "own=1; flavour=oat")
        #expect(jar.allCookies.map(\.description) == ["flavour=oat"])
    }
}
