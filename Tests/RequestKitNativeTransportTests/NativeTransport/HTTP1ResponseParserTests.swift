import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitDSL
@testable import RequestKitJSON
@testable import RequestKitModel
@testable import RequestKitNativeTransport
@testable import RequestKitSockets
@testable import RequestKitURLSession

@Suite("HTTP/1.1 response parsing", .wallClock)
struct HTTP1ResponseParserTests {
    private func parse(_ text: String) throws -> (head: ResponseHead, length: Int)? {
        try Array(text.utf8).withUnsafeBytes { try ResponseHead.parse($0) }
    }

    private func decode(_ text: String, framing: ResponseHead.Framing, split: Int = .max) throws -> Data {
        var decoder = HTTP1BodyDecoder(framing: framing)
        var body = Data()
        var pending: [UInt8] = []
        for byte in Array(text.utf8) {
            pending.append(byte)
            if pending.count >= split {
                let used = try pending.withUnsafeBytes { try decoder.decode($0, into: &body) }
                pending.removeFirst(used)
            }
        }
        let used = try pending.withUnsafeBytes { try decoder.decode($0, into: &body) }
        pending.removeFirst(used)
        if !decoder.isComplete { try decoder.finishAtEndOfStream() }
        return body
    }

    @Test("A head keeps its fields in wire order with duplicates, and reports its length")
    func headFields() throws {
        let text = "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX-One:  spaced value \t\r\nSet-Cookie: b=2\r\n\r\nBODY"
        let parsed = try #require(try parse(text))
        #expect(parsed.length == text.utf8.count - 4)
        #expect(parsed.head.status == 200)
        #expect(parsed.head.reason == "OK")
        #expect(parsed.head.minorVersion == 1)
        #expect(
            parsed.head.fields == [
                .init(name: "Set-Cookie", value: "a=1"), .init(name: "X-One", value: "spaced value"),
                .init(name: "Set-Cookie", value: "b=2"),
            ])
    }

    @Test("An incomplete head asks for more bytes; bare LF line ends and an empty reason are accepted")
    func incompleteAndLenient() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n") == nil)
        let parsed = try #require(try parse("HTTP/1.0 204\nA: b\n\n"))
        #expect(parsed.head.status == 204)
        #expect(parsed.head.reason == "")
        #expect(parsed.head.minorVersion == 0)
        #expect(parsed.length == 19)
    }

    @Test(
        "Malformed heads are rejected with a reason",
        arguments: [
            ("HTTP/1.1 two-hundred OK\r\n\r\n", HTTP1ParseError.invalidStatusLine),
            ("HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion),
            ("SSH-2.0-OpenSSH\r\n\r\n", .invalidStatusLine),
            ("HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", .invalidHeaderField),
            ("HTTP/1.1 200 OK\r\nA: x\r\n folded\r\n\r\n", .obsoleteLineFolding),
            ("HTTP/1.1 200 OK\r\nA: x\u{1}y\r\n\r\n", .invalidHeaderField),
            ("HTTP/1.1 200 OK\r\n: empty\r\n\r\n", .invalidHeaderField),
            ("HTTP/1.1 099 Low\r\n\r\n", .invalidStatusLine),
        ])
    func malformedHeads(_ text: String, _ expected: HTTP1ParseError) {
        #expect(throws: expected) { try parse(text) }
    }

    @Test("Bytes that cannot start a response are rejected at once, whole or in pieces (fuzzer regression)")
    func notHTTP() throws {
        let wire = "HT/1PT.1 200 OK\r\nConte\u{7F}\u{7F}\n"
        #expect(throws: HTTP1ParseError.invalidStatusLine) { try parse(wire) }
        #expect(throws: HTTP1ParseError.invalidStatusLine) { try parse("HT/1P") }
        #expect(try parse("HTTP") == nil)
    }

    @Test("Head size and field count are limited")
    func headLimits() {
        let manyFields = "HTTP/1.1 200 OK\r\n" + String(repeating: "A: b\r\n", count: 101) + "\r\n"
        #expect(throws: HTTP1ParseError.tooManyHeaders) { try parse(manyFields) }
        let huge = "HTTP/1.1 200 OK\r\nA: " + String(repeating: "x", count: 70_000)
        #expect(throws: HTTP1ParseError.headTooLarge) { try parse(huge) }
    }

    @Test("Framing follows RFC 9112: no body for HEAD, 1xx, 204, 304; chunked wins; lengths must agree")
    func framing() throws {
        func head(_ status: Int, _ fields: [(String, String)]) -> ResponseHead {
            ResponseHead(
                minorVersion: 1, status: status, reason: "", fields: fields.map { .init(name: $0.0, value: $0.1) })
        }
        #expect(try head(200, [("Content-Length", "5")]).framing(isHeadRequest: true) == .none)
        #expect(try head(204, [("Content-Length", "5")]).framing(isHeadRequest: false) == .none)
        #expect(try head(304, []).framing(isHeadRequest: false) == .none)
        #expect(try head(200, [("Content-Length", "5")]).framing(isHeadRequest: false) == .length(5))
        #expect(try head(200, [("Content-Length", "5, 5")]).framing(isHeadRequest: false) == .length(5))
        #expect(try head(200, [("Transfer-Encoding", "Chunked")]).framing(isHeadRequest: false) == .chunked)
        #expect(try head(200, []).framing(isHeadRequest: false) == .untilClose)
        #expect(throws: HTTP1ParseError.conflictingContentLength) {
            try head(200, [("Content-Length", "5"), ("Content-Length", "6")]).framing(isHeadRequest: false)
        }
        #expect(throws: HTTP1ParseError.invalidContentLength) {
            try head(200, [("Content-Length", "-1")]).framing(isHeadRequest: false)
        }
        #expect(throws: HTTP1ParseError.invalidContentLength) {
            try head(200, [("Content-Length", "99999999999999999999")]).framing(isHeadRequest: false)
        }
        #expect(throws: HTTP1ParseError.unsupportedTransferEncoding) {
            try head(200, [("Transfer-Encoding", "gzip")]).framing(isHeadRequest: false)
        }
        #expect(head(200, [("Connection", "close")]).isKeepAlive == false)
        #expect(ResponseHead(minorVersion: 0, status: 200, reason: "", fields: []).isKeepAlive == false)
    }

    @Test("The fields that decide framing, decoding and reuse are found in any case, parsed or built")
    func framingFieldsInAnyCase() throws {
        let wire =
            "HTTP/1.1 200 OK\r\ncontent-LENGTH: 3\r\nTRANSFER-encoding: chunked\r\nConnection: Close\r\n"
            + "CONTENT-ENCODING: gzip\r\n\r\n"
        let parsed = try #require(try parse(wire)).head
        #expect(parsed.framingFields == [.contentLength, .transferEncoding, .connection, .contentEncoding])
        #expect(parsed.hasAmbiguousFraming)
        #expect(throws: HTTP1ParseError.contentLengthWithTransferEncoding) {
            try parsed.framing(isHeadRequest: false)
        }
        #expect(!parsed.isKeepAlive)
        #expect(parsed.tokens(of: "Content-Encoding") == ["gzip"])
        #expect(parsed == ResponseHead(minorVersion: 1, status: 200, reason: "OK", fields: parsed.fields))

        let lookalikes = "HTTP/1.1 200 OK\r\nX-Content-Length: 5\r\nConnections: close\r\nContent-Lengths: 2\r\n\r\n"
        let other = try #require(try parse(lookalikes)).head
        #expect(other.framingFields == [])
        #expect(other.isKeepAlive)
        #expect(!other.hasAmbiguousFraming)
        #expect(try other.framing(isHeadRequest: false) == .untilClose)
    }

    @Test("Token lists split on commas, drop spaces, tabs and empty elements, and compare case-insensitively")
    func tokenLists() {
        let head = ResponseHead(
            minorVersion: 1, status: 200, reason: "",
            fields: [
                .init(name: "connection", value: " Upgrade,\tKeep-Alive ,, "),
                .init(name: "Content-Encoding", value: "gzip"),
                .init(name: "CONNECTION", value: "x-Close"),
                .init(name: "Content-Encoding", value: "Deflate , br"),
            ])
        #expect(head.tokens(of: "Connection") == ["upgrade", "keep-alive", "x-close"])
        #expect(head.tokens(of: "Content-Encoding") == ["gzip", "deflate", "br"])
        #expect(head.tokens(of: "Transfer-Encoding") == [])
        #expect(head.hasToken("keep-alive", in: "Connection"))
        #expect(head.hasToken("br", in: "content-encoding"))
        #expect(!head.hasToken("close", in: "Connection"))
        #expect(!head.hasToken("gzip", in: "Connection"))
        #expect(head.isKeepAlive)
        let closing = ResponseHead(
            minorVersion: 1, status: 200, reason: "", fields: [.init(name: "Connection", value: "keep-alive, CLOSE")])
        #expect(!closing.isKeepAlive)
        let keptHTTP10 = ResponseHead(
            minorVersion: 0, status: 200, reason: "", fields: [.init(name: "Connection", value: "Keep-Alive")])
        #expect(keptHTTP10.isKeepAlive)
    }

    @Test(
        "The request target is the URL's path and query as written, without the fragment",
        arguments: [
            ("http://example.com", "/"),
            ("http://example.com/", "/"),
            ("http://example.com?q=1", "/?q=1"),
            ("http://example.com#top", "/"),
            ("http://user:pw@example.com:8080/a/b%20c?x=a://b&y=%2F#frag", "/a/b%20c?x=a://b&y=%2F"),
            ("https://[::1]:8443/%E2%9C%93?", "/%E2%9C%93?"),
        ])
    func originForm(_ url: String, _ target: String) throws {
        #expect(HTTP1RequestEncoder.originForm(try #require(URL(string: url))) == target)
    }

    @Test("Chunked bodies decode the same whole or a byte at a time, trailers dropped", arguments: [1, 3, Int.max])
    func chunked(split: Int) throws {
        let wire = "5;ext=1\r\nhello\r\n1\r\n \r\nA\r\n0123456789\r\n0\r\nX-Checksum: abc\r\n\r\n"
        #expect(try decode(wire, framing: .chunked, split: split) == Data("hello 0123456789".utf8))
    }

    @Test("A trailer line longer than a chunk-size line is read whole, and one past the trailer limit is named")
    func longTrailers() throws {
        let long = String(repeating: "a", count: 5000)
        for split in [1, 7, Int.max] {
            let wire = "2\r\nok\r\n0\r\nX-Long: \(long)\r\n\r\n"
            #expect(try decode(wire, framing: .chunked, split: split) == Data("ok".utf8))
        }
        let huge = String(repeating: "a", count: 70_000)
        #expect(throws: HTTP1ParseError.trailersTooLarge) {
            try decode("2\r\nok\r\n0\r\nX-Long: \(huge)\r\n\r\n", framing: .chunked)
        }
    }

    @Test("Bad chunk framing and oversized chunks are typed errors")
    func badChunks() {
        #expect(throws: HTTP1ParseError.invalidChunkSize) { try decode("zz\r\nabc\r\n", framing: .chunked) }
        #expect(throws: HTTP1ParseError.chunkSizeTooLarge) {
            try decode("FFFFFFFFFFFFFFFFFFFF\r\n", framing: .chunked)
        }
        #expect(throws: HTTP1ParseError.invalidChunkTerminator) { try decode("3\r\nabcXY", framing: .chunked) }
        #expect(throws: HTTP1ParseError.truncatedBody) { try decode("5\r\nab", framing: .chunked) }
        #expect(throws: HTTP1ParseError.truncatedBody) { try decode("abc", framing: .length(10)) }
    }

    @Test("A length-delimited body stops at its length; a close-delimited one takes everything")
    func lengths() throws {
        var decoder = HTTP1BodyDecoder(framing: .length(3))
        var body = Data()
        let used = try Array("abcdef".utf8).withUnsafeBytes { try decoder.decode($0, into: &body) }
        #expect(used == 3)
        #expect(body == Data("abc".utf8))
        #expect(decoder.isComplete)
        #expect(try decode("until the end", framing: .untilClose) == Data("until the end".utf8))
    }
}

@Suite("Content-Length framing", .wallClock)
struct ContentLengthFramingTests {
    func framing(_ values: [String]) throws -> ResponseHead.Framing {
        try ResponseHead(
            minorVersion: 1, status: 200, reason: "", fields: values.map { .init(name: "Content-Length", value: $0) }
        ).framing(isHeadRequest: false)
    }

    @Test("Content-Length is 1*DIGIT with whitespace only around it; duplicates must agree")
    func strictLength() throws {
        #expect(try framing(["10"]) == .length(10))
        #expect(try framing(["10", "10"]) == .length(10))
        #expect(try framing([" 10 , 10"]) == .length(10))
        for value in ["1 0", "1\t0", "", " ", "+5", "0x5", "5,", ",5", "5;", "1_000", "١٠"] {
            #expect(throws: HTTP1ParseError.invalidContentLength, "\(value)") { try framing([value]) }
        }
        #expect(throws: HTTP1ParseError.conflictingContentLength) { try framing(["10", "11"]) }
        #expect(throws: HTTP1ParseError.conflictingContentLength) { try framing(["10, 11"]) }
    }

    /// HTTP/1.1 framing: over HTTP/2 the route's hand-written head closes the connection instead.
    @Test(
        "A bad Content-Length on the wire is a transport error, never a guess, on every transport",
        arguments: WireTransport.all.filter { $0.http2 == nil })
    func onTheWire(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for value in ["1%200", "1%2C2", "%2B10", "0x1"] {
            do {
                let body = try await Request {
                    Url(server.url("/hostile/content-length?value=\(value)"))
                    Using(transport.transport)
                }.data()
                Issue.record("\(value) was read as \(body.count) bytes")
            } catch {
                #expect(error.kind == .transport, "\(value)")
                let expected = value == "1%2C2" ? "conflicting Content-Length values" : "invalid Content-Length"
                #expect(error.detail == expected, "\(value): \(error)")
            }
        }
    }

    @Test("The pipeline refuses a malformed Content-Length from any transport, and keeps the head")
    func anyTransport() async throws {
        for (value, detail) in [("1 0", "invalid Content-Length"), ("5, 6", "conflicting Content-Length values")] {
            let mock = MockTransport { _ in Response(status: .ok, headers: ["Content-Length": value], body: Data()) }
            for stream in [false, true] {
                let request = Request {
                    Url("http://127.0.0.1:9/x")
                    Using(mock)
                }
                let error = await #expect(throws: RequestError.self) {
                    if stream { _ = try await request.stream() } else { _ = try await request.send() }
                }
                #expect(error?.kind == .transport, "\(value)")
                #expect(error?.detail == detail, "\(value)")
                #expect(error?.responseHeaders?["Content-Length"] == value, "\(value)")
            }
        }
        let mock = MockTransport { _ in Response(status: .ok, headers: ["Content-Length": " 2 "], body: Data("ok".utf8))
        }
        #expect(
            try await Request {
                Url("http://127.0.0.1:9/x"); Using(mock)
            }.string() == "ok")
    }
}
