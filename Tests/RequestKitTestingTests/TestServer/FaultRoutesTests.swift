import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer retry and fault routes", .wallClock)
struct FaultRoutesTests {
    @Test("/sequence/{codes} answers successive requests with successive codes, repeating the last")
    func sequence() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        var seen: [(Int, String?, String?)] = []
        for _ in 0..<4 {
            try await connection.send("GET /sequence/503,429,200?retry_after=2 HTTP/1.1\r\nHost: h\r\n\r\n")
            let response = try await connection.readResponse()
            seen.append((response.status, response.header("X-Attempt"), response.header("Retry-After")))
        }
        #expect(seen.map(\.0) == [503, 429, 200, 200])
        #expect(seen.map(\.1) == ["1", "2", "3", "4"])
        #expect(seen.map(\.2) == ["2", "2", nil, nil])
        let arrivals = server.requests.map(\.receivedAt)
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $0 <= $1 })
        try await connection.send("GET /sequence/500,201 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().status == 500)
    }

    @Test(
        "/fault/{kind} sends exactly the broken bytes, then closes",
        arguments: [
            ("close", ""),
            ("truncate", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n0123456789"),
            ("malformed-status", "HTTP/1.1 two-hundred OK\r\nContent-Length: 0\r\n\r\n"),
            ("bad-chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n"),
        ])
    func faults(kind: String, bytes: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /fault/\(kind) HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await connection.readToEnd() == Data(bytes.utf8))
    }

    @Test("/fault/hang-body sends headers and then nothing; the client leaving is counted as aborted")
    func hangingBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /fault/hang-body HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readLine() == "HTTP/1.1 200 OK")
        await connection.close()
        #expect(await server.waitUntil { $0.abortedRequests == 1 })
    }
}
