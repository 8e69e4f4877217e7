import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer defends against malformed input", .wallClock)
struct TestServerMalformedInputTests {
    /// Sends `request` on a fresh connection and returns the status, the body text and whether the server closed.
    private func exchange(_ request: String, server: TestServer) async throws -> (Int, String, Bool) {
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send(request)
        let response = try await connection.readResponse()
        #expect(response.header("Connection") == "close")
        return (response.status, response.text, await connection.isClosedByServer())
    }

    @Test(
        "Malformed requests get a 4xx/5xx saying what was wrong, then the connection closes",
        arguments: [
            (
                "GARBAGE\r\n\r\n", 400,
                "malformed request line: expected \"METHOD target HTTP/1.1\" separated by single spaces"
            ),
            (
                "GET  / HTTP/1.1\r\nHost: h\r\n\r\n", 400,
                "malformed request line: expected \"METHOD target HTTP/1.1\" separated by single spaces"
            ),
            ("G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400, "invalid character in request method"),
            ("GET nope HTTP/1.1\r\nHost: h\r\n\r\n", 400, "request target must start with \"/\""),
            ("GET / HTTX/1.1\r\nHost: h\r\n\r\n", 400, "malformed HTTP version \"HTTX/1.1\""),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505, "unsupported HTTP version HTTP/2.0"),
            ("GET / HTTP/1.1\nHost: h\r\n\r\n", 400, "line ends with a bare LF instead of CRLF"),
            ("GET / HTTP/1.1\r\nHost: h\rX\r\n\r\n", 400, "bare CR inside a line"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  folded\r\n\r\n", 400, "obsolete line folding is not allowed"),
            ("GET / HTTP/1.1\r\nHost: h\r\nBad Name: 1\r\n\r\n", 400, "invalid character in header name"),
            ("GET / HTTP/1.1\r\nHost: h\r\nName : 1\r\n\r\n", 400, "whitespace between header name and colon"),
            ("GET / HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n", 400, "header line without a colon"),
            ("GET / HTTP/1.1\r\nHost: h\r\nX: a\u{01}b\r\n\r\n", 400, "invalid character in value of header X"),
            ("GET / HTTP/1.1\r\n\r\n", 400, "missing Host header"),
            ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "more than one Host header"),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400,
                "conflicting Content-Length values"
            ),
            ("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400, "invalid Content-Length \"-1\""),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400,
                "both Content-Length and Transfer-Encoding are present"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501,
                "unsupported transfer coding gzip, chunked"
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400,
                "invalid chunk size \"zz\""
            ),
            (
                "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", 400,
                "chunk data is not followed by CRLF"
            ),
            ("GET / HTTP/1.1\r\nHost: h\r\nExpect: magic\r\n\r\n", 417, "unsupported expectation magic"),
        ])
    func malformed(request: String, status: Int, message: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (actualStatus, text, closed) = try await exchange(request, server: server)
        #expect(actualStatus == status)
        #expect(text == message + "\n")
        #expect(closed)
        #expect(server.stats.rejectedRequests == 1)
    }

    @Test("Headers over maxHeaderBytes get 431 and a request line over it gets 414")
    func oversizedHead() async throws {
        let server = try TestServer(configuration: .init(maxHeaderBytes: 1024))
        defer { server.stop() }
        let headers = try await exchange(
            "GET / HTTP/1.1\r\nHost: h\r\nX-Big: \(String(repeating: "a", count: 2000))\r\n\r\n", server: server)
        #expect(headers.0 == 431)
        #expect(headers.1 == "request header section is larger than 1024 bytes\n")
        let manyHeaders = (0..<100).map { "X-\($0): value\r\n" }.joined()
        #expect(try await exchange("GET / HTTP/1.1\r\nHost: h\r\n\(manyHeaders)\r\n", server: server).0 == 431)
        let line = try await exchange(
            "GET /\(String(repeating: "a", count: 2000)) HTTP/1.1\r\nHost: h\r\n\r\n", server: server)
        #expect(line.0 == 414)
    }

    @Test("Bodies over maxBodyBytes get 413, whether sized by Content-Length or chunked")
    func oversizedBody() async throws {
        let server = try TestServer(configuration: .init(maxBodyBytes: 4))
        defer { server.stop() }
        #expect(
            try await exchange("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello", server: server).0 == 413)
        let chunked =
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n3\r\ndef\r\n0\r\n\r\n"
        #expect(try await exchange(chunked, server: server).0 == 413)
    }

    @Test("A request that stalls mid-head or mid-body gets 408 after readTimeout, then the connection closes")
    func stalledRequests() async throws {
        let server = try TestServer(configuration: .init(readTimeout: .milliseconds(300)))
        defer { server.stop() }
        let head = try await exchange("GET /get HTTP/1.1\r\nHost: h\r\n", server: server)
        #expect(head.0 == 408)
        #expect(head.1 == "the request head did not arrive in time\n")
        #expect(head.2)
        let body = try await exchange("POST /post HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc", server: server)
        #expect(body.0 == 408)
        #expect(body.1 == "the request body did not arrive in time\n")
        #expect(server.stats.rejectedRequests == 2)
        #expect(server.stats.requestCount == 0)
    }

    @Test("Random bytes and truncated requests never break the server; a normal request still works afterwards")
    func fuzzing() async throws {
        let server = try TestServer(configuration: .init(readTimeout: .seconds(2)))
        defer { server.stop() }
        let valid = Array(
            "POST /anything?a=1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nX: y\r\n\r\n4\r\nbody\r\n0\r\n\r\n"
                .utf8)
        var random = SeededGenerator(seed: 42)
        for round in 0..<150 {
            var bytes: [UInt8]
            switch round % 3 {
            case 0:
                bytes = (0..<Int.random(in: 1...300, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            case 1:
                bytes = Array(valid.prefix(Int.random(in: 0..<valid.count, using: &random)))
            default:
                bytes = valid
                for _ in 0..<3 {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let connection = try RawHTTPConnection(port: server.port, timeout: .seconds(5))
            try? await connection.send(Data(bytes))
            await connection.shutdownWrite()
            _ = await connection.readToEnd()
            await connection.close()
        }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get?after=fuzz HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 200)
        #expect(response.text.contains(#""query":"after=fuzz""#))
        await connection.close()
        #expect(await server.waitUntil { $0.openConnections == 0 })
        #expect(server.stats.activeRequests == 0)
    }
}

/// A small deterministic random number generator (SplitMix64) so fuzz rounds repeat exactly.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
