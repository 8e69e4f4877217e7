#if canImport(CNghttp2)
import Foundation
import RequestKitModel
import Testing

@testable import RequestKitHTTP2
@testable import RequestKitNativeTransport

/// The HTTP/2 head a connection reads back from the HTTP/1.1 head its job carries: pseudo-headers from the request
/// line and `Host`, names lower-cased, connection-specific fields left out.
@Suite("An HTTP/1.1 request head read back as an HTTP/2 header block")
struct HTTP2RequestHeadTests {
    private static func fields(_ head: String, scheme: String = "https") throws -> [String] {
        try HTTP2RequestHead(http1Head: Array(head.utf8), scheme: scheme).fields.map { "\($0.name): \($0.value)" }
    }

    @Test("The request line and Host become pseudo-headers; the rest follow in order, lower-cased")
    func pseudoHeaders() throws {
        let head =
            "GET /todos?userId=1 HTTP/1.1\r\nAccept: application/json\r\nHost: api.example.com:8443\r\n"
            + "X-Trace: a b\r\n\r\n"
        #expect(
            try Self.fields(head) == [
                ":method: GET", ":scheme: https", ":authority: api.example.com:8443", ":path: /todos?userId=1",
                "accept: application/json", "x-trace: a b",
            ])
    }

    @Test("Lines may end in a line feed alone; Host in any case; a value loses its leading blanks, keeps the rest")
    func looseLines() throws {
        let head = "DELETE / HTTP/1.1\nHOST: h:1\nHots: 4\nX-A:\t \tv  w \r\nX-Empty:\n\n"
        #expect(
            try Self.fields(head, scheme: "http") == [
                ":method: DELETE", ":scheme: http", ":authority: h:1", ":path: /", "hots: 4", "x-a: v  w ", "x-empty: ",
            ])
    }

    @Test(
        "Connection-specific fields never go over HTTP/2, and TE only as trailers",
        arguments: [
            ("Connection: keep-alive", [String]()), ("Keep-Alive: timeout=5", []), ("Transfer-Encoding: chunked", []),
            ("Upgrade: websocket", []), ("Proxy-Connection: close", []), ("TE: gzip", []),
            ("TE: trailers", ["te: trailers"]), ("Content-Length: 5", ["content-length: 5"]),
        ])
    func connectionSpecific(field: String, kept: [String]) throws {
        let fields = try Self.fields("POST /upload HTTP/1.1\r\nHost: h\r\n\(field)\r\n\r\n", scheme: "http")
        #expect(Array(fields.dropFirst(4)) == kept)
        #expect(fields.first == ":method: POST")
    }

    @Test(
        "A head that is not an origin-form request is refused, not sent",
        arguments: [
            "GET http://h/a HTTP/1.1\r\nHost: h\r\n\r\n", "GET /a\r\nHost: h\r\n\r\n", "",
            "GET /a HTTP/1.1\r\nHost h\r\n\r\n", "GET  /a HTTP/1.1\r\n\r\n", "GET /a HTTP/1.1 x\r\n\r\n",
            "GET a HTTP/1.1\r\n\r\n", "GET  HTTP/1.1\r\n\r\n",
        ])
    func refused(head: String) {
        #expect(throws: RequestError.self) { try HTTP2RequestHead(http1Head: Array(head.utf8), scheme: "https") }
    }
}
#endif
