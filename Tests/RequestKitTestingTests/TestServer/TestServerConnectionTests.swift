import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer connections and framing", .wallClock)
struct TestServerConnectionTests {
    @Test("Two requests on one socket are served on the same kept-alive connection")
    func keepAlive() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get?n=1 HTTP/1.1\r\nHost: h\r\n\r\n")
        let first = try await connection.readResponse()
        try await connection.send("GET /get?n=2 HTTP/1.1\r\nHost: h\r\n\r\n")
        let second = try await connection.readResponse()
        #expect(first.status == 200 && second.status == 200)
        #expect(first.header("Connection") == nil)
        #expect(server.requests.map(\.query) == ["n=1", "n=2"])
        #expect(Set(server.requests.map(\.connectionID)).count == 1)
        #expect(server.stats.totalConnections == 1)
    }

    @Test("Pipelined requests are answered in order")
    func pipelining() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(
            "GET /status/201 HTTP/1.1\r\nHost: h\r\n\r\nGET /status/202 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().status == 201)
        #expect(try await connection.readResponse().status == 202)
    }

    @Test("Connection: close is honoured: the response says so and the server closes")
    func connectionClose() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.header("Connection") == "close")
        #expect(response.headerNames.last == "Connection")
        #expect(await connection.isClosedByServer())
    }

    @Test("HTTP/1.0 closes by default and stays open with Connection: keep-alive")
    func http10() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let plain = try RawHTTPConnection(port: server.port)
        try await plain.send("GET /get HTTP/1.0\r\n\r\n")
        #expect(try await plain.readResponse().header("Connection") == "close")
        #expect(await plain.isClosedByServer())

        let kept = try RawHTTPConnection(port: server.port)
        try await kept.send("GET /get HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        #expect(try await kept.readResponse().header("Connection") == "keep-alive")
        try await kept.send("GET /get HTTP/1.0\r\n\r\n")
        #expect(try await kept.readResponse().status == 200)
    }

    @Test("Expect: 100-continue gets an interim 100 before the body is sent")
    func expectContinue() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(
            "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        let interim = try await connection.readResponse()
        #expect(interim.statusLine == "HTTP/1.1 100 Continue")
        #expect(interim.headers.isEmpty)
        try await connection.send("abc")
        let final = try await connection.readResponse()
        #expect(
            final.text == #"{"bytes":3,"sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}"#)
    }

    @Test("A too-large body announced with Expect: 100-continue is refused with 413 without waiting for it")
    func expectContinueTooLarge() async throws {
        let server = try TestServer(configuration: .init(maxBodyBytes: 10))
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(
            "POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 413)
        #expect(response.text == "request body of 11 bytes exceeds 10\n")
        #expect(await connection.isClosedByServer())
    }

    @Test("A chunked request body with extensions and trailers is decoded")
    func chunkedRequestBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(
            "POST /anything HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: yes\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.text.contains(#""body":"hello world""#))
        let request = try #require(server.requests.first)
        #expect(request.body == Data("hello world".utf8))
        #expect(request.trailers.map(\.name) == ["X-Trailer"])
        #expect(request.trailers.map(\.value) == ["yes"])
    }

    @Test("A chunked response frames one chunk per piece and ends with the trailers")
    func chunkedResponseFraming() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /chunked?chunks=2&size=3 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        let raw = String(decoding: await connection.readToEnd(), as: UTF8.self)
        let body = try #require(raw.split(separator: "\r\n\r\n", maxSplits: 1).last)
        let digest = SHA256Digest.hex(of: Data("aaabbb".utf8))
        #expect(body == "3\r\naaa\r\n3\r\nbbb\r\n0\r\nX-Chunk-Count: 2\r\nX-Content-SHA256: \(digest)\r\n\r\n")
        #expect(
            raw.hasPrefix("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTrailer: X-Chunk-Count, X-Content-SHA256\r\n")
        )
        #expect(raw.contains("\r\nTransfer-Encoding: chunked\r\n"))
    }

    @Test("maxRequestsPerConnection closes the connection after the last allowed response")
    func requestLimit() async throws {
        let server = try TestServer { $0.maxRequestsPerConnection = 2 }
        #expect(server.configuration.maxRequestsPerConnection == 2)
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().header("Connection") == nil)
        try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().header("Connection") == "close")
        #expect(await connection.isClosedByServer())
    }

    @Test("An idle kept-alive connection is closed after keepAliveTimeout")
    func keepAliveTimeout() async throws {
        let server = try TestServer(configuration: .init(keepAliveTimeout: .milliseconds(200)))
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().status == 200)
        #expect(await connection.isClosedByServer())
    }

    @Test("Streamed bodies are chunked, raw bodies are sent verbatim, and a delayed response waits")
    func customBodies() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/stream") { _ in
            TestResponse(
                body: .stream { writer in
                    try writer.write("one")
                    try writer.write(Data())
                    try writer.write("two")
                })
        }
        server.route("/raw") { _ in
            TestResponse(body: .raw { writer in try writer.writeRaw(Data("HTTP/1.1 299 Odd\r\n\r\nbye".utf8)) })
        }
        server.route("/slow") { _ in TestResponse.text("late").delayed(by: .milliseconds(100)) }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /stream HTTP/1.1\r\nHost: h\r\n\r\n")
        let streamed = try await connection.readResponse()
        #expect(streamed.chunkSizes == ["3", "3", "0"])
        #expect(streamed.text == "onetwo")
        try await connection.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().text == "late")
        try await connection.send("GET /raw HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await connection.readToEnd() == Data("HTTP/1.1 299 Odd\r\n\r\nbye".utf8))
    }

    @Test("A stream can end with custom trailers, HEAD skips the body, and HTTP/1.0 gets a close-delimited body")
    func streamVariants() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/trailers") { _ in
            TestResponse(
                headers: [("Trailer", "X-Done")],
                body: .stream { writer in
                    try writer.write(writer.isClientConnected ? "data" : "gone")
                    try writer.finish(trailers: [("X-Done", "yes")])
                    try writer.write("ignored after finish")
                })
        }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /trailers HTTP/1.1\r\nHost: h\r\n\r\n")
        let streamed = try await connection.readResponse()
        #expect(streamed.text == "data")
        #expect(streamed.trailers.map(\.name) == ["X-Done"])
        #expect(streamed.trailers.map(\.value) == ["yes"])

        try await connection.send("HEAD /stream/2 HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try await connection.readResponse(forHEAD: true)
        #expect(head.header("Transfer-Encoding") == "chunked")
        try await connection.send("GET /status/200 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().text == "status 200")

        let old = try RawHTTPConnection(port: server.port)
        try await old.send("GET /chunked?chunks=2&size=2 HTTP/1.0\r\n\r\n")
        let raw = String(decoding: await old.readToEnd(), as: UTF8.self)
        #expect(raw.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(!raw.contains("Transfer-Encoding"))
        #expect(raw.contains("\r\nConnection: close\r\n"))
        #expect(raw.hasSuffix("\r\n\r\naabb"))
    }
}
