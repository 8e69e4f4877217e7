import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestServer /range route", .wallClock)
struct RangeRouteTests {
    private func get(_ target: String, range: String?) async throws -> RawHTTPResponse {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET \(target) HTTP/1.1\r\nHost: h\r\n\(range.map { "Range: \($0)\r\n" } ?? "")\r\n")
        return try await connection.readResponse()
    }

    @Test(
        "A single byte range gets 206 with Content-Range and exactly those bytes",
        arguments: [
            ("bytes=0-4", "bytes 0-4/30", "abcde"),
            ("bytes=25-", "bytes 25-29/30", "zabcd"),
            ("bytes=-3", "bytes 27-29/30", "bcd"),
            ("bytes=28-100", "bytes 28-29/30", "cd"),
        ])
    func partial(range: String, contentRange: String, body: String) async throws {
        let response = try await get("/range/30", range: range)
        #expect(response.status == 206)
        #expect(response.header("Content-Range") == contentRange)
        #expect(response.text == body)
        #expect(response.header("Accept-Ranges") == "bytes")
    }

    @Test("No Range gets the whole body; an unsatisfiable or multi-part Range gets 416")
    func wholeAndUnsatisfiable() async throws {
        let whole = try await get("/range/28", range: nil)
        #expect(whole.status == 200)
        #expect(whole.text == "abcdefghijklmnopqrstuvwxyzab")
        #expect(whole.header("ETag") == #""range28""#)
        for range in ["bytes=30-", "bytes=5-2", "bytes=0-1,3-4", "items=0-1"] {
            let response = try await get("/range/30", range: range)
            #expect(response.status == 416, "\(range)")
            #expect(response.header("Content-Range") == "bytes */30", "\(range)")
        }
    }
}
