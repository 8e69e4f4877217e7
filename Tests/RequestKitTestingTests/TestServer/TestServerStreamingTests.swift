import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer streaming routes", .wallClock)
struct TestServerStreamingTests {
    @Test("/sse?drop=K cuts the first stream after K events; Last-Event-ID resumes; later streams are whole")
    func eventStreamDropAndResume() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let first = try RawHTTPConnection(port: server.port)
        try await first.send("GET /sse?count=5&drop=2&retry=100 HTTP/1.1\r\nHost: h\r\n\r\n")
        let cut = String(decoding: await first.readToEnd(), as: UTF8.self)
        #expect(cut.contains("Content-Type: text/event-stream\r\n"))
        #expect(
            cut.hasSuffix(
                "c\r\nretry: 100\n\n\r\n17\r\nid: 1\ndata: message 1\n\n\r\n17\r\nid: 2\ndata: message 2\n\n\r\n"))

        let resumed = try RawHTTPConnection(port: server.port)
        try await resumed.send("GET /sse?count=5&drop=2 HTTP/1.1\r\nHost: h\r\nLast-Event-ID: 2\r\n\r\n")
        let rest = try await resumed.readResponse()
        #expect(rest.text == "id: 3\ndata: message 3\n\nid: 4\ndata: message 4\n\nid: 5\ndata: message 5\n\n")
        #expect(rest.chunkSizes == ["17", "17", "17", "0"])

        try await resumed.send("GET /sse?count=2&drop=1 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await resumed.readResponse().text == "id: 1\ndata: message 1\n\nid: 2\ndata: message 2\n\n")
    }

    @Test("/stream/{n} sends n JSON lines, one chunk each, with ids")
    func jsonLines() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /stream/3 HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await connection.readResponse()
        let lines = response.text.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(response.chunkSizes.count == 4)
        for (index, line) in lines.enumerated() {
            #expect(line.contains(#""id":\#(index),"#))
            #expect(line.hasSuffix(#""url":"http://h/stream/3"}"#))
        }
    }

    @Test("/large/{n} streams n deterministic bytes with a Content-Length")
    func largeBody() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        let size = 3 * 64 * 1024 + 123
        try await connection.send("GET /large/\(size) HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.header("Content-Length") == String(size))
        #expect(response.body == TestPayload.largeBody(count: size))
        #expect(Array(response.body.prefix(3)) == [0, 1, 2])
        #expect(response.body[251] == 0)
    }

    @Test("/bytes/{n}?seed= is deterministic and matches TestPayload.randomBytes")
    func seededBytes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /bytes/13?seed=7 HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.header("Content-Type") == "application/octet-stream")
        #expect(response.body == TestPayload.randomBytes(count: 13, seed: 7))
        #expect(TestPayload.randomBytes(count: 8, seed: 0) == Data([0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2]))
        try await connection.send("GET /bytes/13?seed=8 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readResponse().body != response.body)
    }

    @Test("/drip sends numbytes stars with a Content-Length and the requested status")
    func drip() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /drip?numbytes=4&duration=0.1&code=201 HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.status == 201)
        #expect(response.header("Content-Length") == "4")
        #expect(response.text == "****")
    }

    @Test("/upload reports the byte count and SHA-256 of a large chunked upload")
    func uploadDigest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let payload = TestPayload.randomBytes(count: 300_000, seed: 3)
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("POST /upload HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
        var offset = 0
        while offset < payload.count {
            let piece = payload[offset..<min(offset + 70_000, payload.count)]
            try await connection.send("\(String(piece.count, radix: 16))\r\n")
            try await connection.send(Data(piece))
            try await connection.send("\r\n")
            offset += piece.count
        }
        try await connection.send("0\r\n\r\n")
        let response = try await connection.readResponse()
        #expect(response.text == #"{"bytes":300000,"sha256":"\#(SHA256Digest.hex(of: payload))"}"#)
    }
}
