import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer built-in routes", .wallClock)
struct BuiltInRoutesTests {
    /// Sends one request with extra header lines on a fresh connection and reads the response.
    private func get(_ target: String, _ headers: String = "", method: String = "GET") async throws -> RawHTTPResponse {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("\(method) \(target) HTTP/1.1\r\nHost: h\r\n\(headers)\r\n")
        return try await connection.readResponse()
    }

    @Test("/status/{code} sends the code with a short text, none for 204/304, and Location for redirects")
    func status() async throws {
        let teapot = try await get("/status/418")
        #expect(teapot.statusLine == "HTTP/1.1 418 I'm a teapot")
        #expect(teapot.text == "status 418")
        let noContent = try await get("/status/204", method: "DELETE")
        #expect(noContent.status == 204)
        #expect(noContent.header("Content-Length") == nil)
        #expect(noContent.headerNames == ["Date"])
        let redirect = try await get("/status/307")
        #expect(redirect.header("Location") == "/anything")
        #expect(try await get("/status/99").status == 400)
        #expect(try await get("/status/abc").text == "status code must be a number from 200 to 599, not \"abc\"")
    }

    @Test("/redirect/{n} counts down to /get; /redirect-to uses the url and status_code")
    func redirects() async throws {
        #expect(try await get("/redirect/3").header("Location") == "/redirect/2")
        #expect(try await get("/redirect/1").header("Location") == "/get")
        let absolute = try await get("/absolute-redirect/2")
        #expect(absolute.header("Location")?.hasPrefix("http://127.0.0.1:") == true)
        #expect(absolute.header("Location")?.hasSuffix("/absolute-redirect/1") == true)
        let to = try await get("/redirect-to?url=%2Fstatus%2F200%3Fa%3D1&status_code=307")
        #expect(to.status == 307)
        #expect(to.header("Location") == "/status/200?a=1")
        #expect(try await get("/redirect-to?url=%0D%0AX:1").status == 400)
    }

    @Test("/delay/{seconds} answers with the echo document after the delay")
    func delay() async throws {
        let started = ContinuousClock.now
        let response = try await get("/delay/0.2")
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        #expect(response.text.contains(#""path":"/delay/0.2""#))
    }

    @Test("/basic-auth and /bearer accept the right credentials and challenge otherwise")
    func authentication() async throws {
        let basic = try await get(
            "/basic-auth/user/pa%20ss", "Authorization: Basic \(Data("user:pa ss".utf8).base64EncodedString())\r\n")
        #expect(basic.text == #"{"authenticated":true,"user":"user"}"#)
        let wrong = try await get(
            "/basic-auth/user/pass", "Authorization: Basic \(Data("user:nope".utf8).base64EncodedString())\r\n")
        #expect(wrong.status == 401)
        #expect(wrong.header("WWW-Authenticate") == #"Basic realm="Fake Realm""#)
        #expect(
            try await get("/bearer", "Authorization: Bearer t0k3n\r\n").text
                == #"{"authenticated":true,"token":"t0k3n"}"#)
        let missing = try await get("/bearer")
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate") == "Bearer")
    }

    @Test("/cookies echoes Cookie; /cookies/set and /cookies/delete set cookies and redirect")
    func cookies() async throws {
        #expect(try await get("/cookies", "Cookie: a=1; b=two\r\n").text == #"{"cookies":{"a":"1","b":"two"}}"#)
        let set = try await get("/cookies/set?a=1&b=2")
        #expect(set.status == 302)
        #expect(set.header("Location") == "/cookies")
        #expect(set.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1; Path=/", "b=2; Path=/"])
        let deleted = try await get("/cookies/delete?a")
        #expect(deleted.header("Set-Cookie") == "a=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/")
    }

    @Test("/response-headers sends the requested headers and echoes them")
    func responseHeaders() async throws {
        let response = try await get("/response-headers?X-One=1&X-Two=a&X-Two=b")
        #expect(response.headers.filter { $0.name.hasPrefix("X-") }.map(\.value) == ["1", "a", "b"])
        #expect(response.text == #"{"X-One":"1","X-Two":["a","b"]}"#)
        #expect(try await get("/response-headers?X-Bad=%0D%0Ainjected").status == 400)
    }

    @Test("/etag/{etag} and /cache answer conditional requests with 304")
    func conditionalRequests() async throws {
        let fresh = try await get("/etag/abc")
        #expect(fresh.status == 200)
        #expect(fresh.header("ETag") == #""abc""#)
        let notModified = try await get("/etag/abc", "If-None-Match: \"x\", W/\"abc\"\r\n")
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(try await get("/etag/abc", "If-Match: \"other\"\r\n").status == 412)
        #expect(try await get("/cache").header("Last-Modified") == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(try await get("/cache", "If-Modified-Since: Wed, 21 Oct 2015 07:28:00 GMT\r\n").status == 304)
        #expect(try await get("/cache/60").header("Cache-Control") == "public, max-age=60")
    }

    @Test("/headers, /json, /ip and /user-agent return fixed-shape JSON")
    func documents() async throws {
        #expect(try await get("/headers", "X-A: 1\r\n").text == #"{"headers":{"Host":"h","X-A":"1"}}"#)
        let json = try await get("/json").text
        #expect(json.hasPrefix(#"{"slideshow":{"author":"Yours Truly","date":"date of publication","slides":["#))
        #expect(try await get("/ip").text == #"{"origin":"127.0.0.1"}"#)
        #expect(try await get("/user-agent", "User-Agent: tests/1\r\n").text == #"{"user-agent":"tests/1"}"#)
    }

    @Test("Every response carries a Date header in IMF-fixdate form")
    func dateHeader() async throws {
        let date = try #require(try await get("/get").header("Date"))
        #expect(date.hasSuffix(" GMT"))
        #expect(date.count == "Sun, 06 Nov 1994 08:49:37 GMT".count)
    }
}
