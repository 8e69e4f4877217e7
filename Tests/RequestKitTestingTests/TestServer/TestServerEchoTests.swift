import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer echo and routing", .wallClock)
struct TestServerEchoTests {
    @Test("/anything echoes the raw path and query, decoded args and headers as received, byte for byte")
    func anythingEchoIsExact() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(
            "GET /anything/a%20b?x=1&y=%C3%A9&y=2&plus=a+b&flag HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-Custom: A\r\nx-custom: B\r\nAccept: */*\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.statusLine == "HTTP/1.1 200 OK")
        #expect(response.headerNames == ["Content-Type", "Content-Length", "Date"])
        #expect(response.header("Content-Type") == "application/json")
        let expected =
            #"{"args":{"flag":"","plus":"a b","x":"1","y":["é","2"]},"body":"","bodyBase64":"","bodyLength":0,"#
            + #""headers":{"Accept":"*/*","Host":"127.0.0.1","X-Custom":"A, B"},"#
            + #""method":"GET","path":"/anything/a%20b","query":"x=1&y=%C3%A9&y=2&plus=a+b&flag","#
            + #""url":"http://127.0.0.1/anything/a%20b?x=1&y=%C3%A9&y=2&plus=a+b&flag"}"#
        #expect(response.text == expected)
        #expect(response.header("Content-Length") == String(Data(expected.utf8).count))
    }

    @Test("The recorded request keeps the target, headers in order and spelling, and decoded query items")
    func recordedRequestIsFaithful() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(
            "PUT /put?q=%2Fa%2B&bare HTTP/1.1\r\nhost: h\r\nB-Header: 2\r\nA-Header: 1\r\nContent-Length: 3\r\n\r\nabc")
        let response = try await connection.readResponse()
        #expect(response.status == 200)
        let request = try #require(server.requests.first)
        #expect(request.method == "PUT")
        #expect(request.target == "/put?q=%2Fa%2B&bare")
        #expect(request.path == "/put")
        #expect(request.query == "q=%2Fa%2B&bare")
        #expect(request.queryItems.map(\.name) == ["q", "bare"])
        #expect(request.queryItems.map(\.value) == ["/a+", nil])
        #expect(request.headers.map(\.name) == ["host", "B-Header", "A-Header", "Content-Length"])
        #expect(request.header("a-header") == "1")
        #expect(request.body == Data("abc".utf8))
        #expect(request.httpVersion == "HTTP/1.1")
        #expect(server.stats.requestCount == 1)
    }

    @Test("POST body is echoed as text and base64; a non-UTF-8 body is echoed only as base64")
    func bodyEcho() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("POST /post HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
        let text = try await connection.readResponse().text
        #expect(text.contains(#""body":"hello","bodyBase64":"aGVsbG8=","bodyLength":5"#))
        try await connection.send("POST /anything HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n")
        try await connection.send(Data([0xFF, 0xFE]))
        let binary = try await connection.readResponse().text
        #expect(binary.contains(#""body":"","bodyBase64":"//4=","bodyLength":2"#))
    }

    @Test("Method-checked routes answer 405 with Allow for other methods")
    func methodChecks() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("POST /get HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
        #expect(response.text == "method not allowed: POST")
    }

    @Test("HEAD gets the headers of the GET response, including its Content-Length, and no body")
    func headHasNoBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("HEAD /bytes/10 HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try await connection.readResponse(forHEAD: true)
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "10")
        try await connection.send("GET /bytes/3 HTTP/1.1\r\nHost: h\r\n\r\n")
        let next = try await connection.readResponse()
        #expect(next.body.count == 3)
    }

    @Test("An unknown path is a 404 naming the path")
    func unknownPath() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /nope/x%41 HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 404)
        #expect(response.text == "not found: /nope/x%41")
    }

    @Test("Custom routes win over built-ins, capture {parameters} and * remainders, and 405 on a method mismatch")
    func customRoutes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/get") { _ in .text("mine") }
        server.route("/users/{id}/posts/{post}", method: "GET") { request in
            .text("\(request.pathParameters["id"] ?? "-")|\(request.pathParameters["post"] ?? "-")")
        }
        server.route("/files/*") { request in .text("file \(request.path)") }
        let connection = try RawHTTPConnection(port: server.port)
        let cases: [(String, Int, String)] = [
            ("GET /get", 200, "mine"),
            ("GET /users/a%20b/posts/7?x=1", 200, "a b|7"),
            ("DELETE /users/1/posts/2", 405, "method not allowed: DELETE"),
            ("GET /files/a/b.txt", 200, "file /files/a/b.txt"),
            ("GET /files", 404, "not found: /files"),
        ]
        for (requestLine, status, body) in cases {
            try await connection.send("\(requestLine) HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try await connection.readResponse()
            #expect(response.status == status, "\(requestLine)")
            #expect(response.text == body, "\(requestLine)")
        }
    }

    @Test("baseURL and url(_:) point at the listening port")
    func urls() throws {
        let server = try TestServer()
        defer { server.stop() }
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
        #expect(server.url("/anything?a=1").absoluteString == "http://127.0.0.1:\(server.port)/anything?a=1")
        #expect(server.url("get").absoluteString == "http://127.0.0.1:\(server.port)/get")
        #expect(server.url("/a b").absoluteString == "http://127.0.0.1:\(server.port)/a%20b")
        #expect(server.port > 0)
    }
}
