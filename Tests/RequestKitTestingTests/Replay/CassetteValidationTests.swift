import Foundation
import RequestKitDSL
import RequestKitModel
import Testing

@testable import RequestKitTesting

/// Cassettes written by hand or by a hostile hand: each field replay reads is checked when the cassette is loaded,
/// and a bad one is an error naming the entry and the field, never a crash when the entry is replayed.
@Suite("Cassette validation: a cassette is input, checked field by field on load")
struct CassetteValidationTests {
    /// One entry of a cassette: a GET answered with `hello` in two chunks, its fields as text so that a case can
    /// change one.
    static let entry = """
        {
          "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 12, "cache": {},
          "timings": {"send": 0, "wait": 2, "receive": 10},
          "request": {
            "method": "GET", "url": "http://api.test/items", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Accept", "value": "text/plain"}], "queryString": [], "headersSize": -1,
            "bodySize": 0
          },
          "response": {
            "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [{"name": "Content-Type", "value": "text/plain"}, {"name": "X-Note", "value": "fine"}],
            "content": {"size": 5, "mimeType": "text/plain", "text": "hello"},
            "redirectURL": "", "headersSize": -1, "bodySize": -1,
            "_chunks": [{"size": 2, "time": 0}, {"size": 3, "time": 10}]
          }
        }
        """

    /// A cassette of `entries`.
    static func document(_ entries: [String]) -> Data {
        Data(
            """
            {"log": {"version": "1.2", "creator": {"name": "hand", "version": "1"}, "entries": [\(entries.joined(separator: ","))]}}
            """.utf8)
    }

    /// A change to the entry and the problem it must be reported as.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let original: String
        let replacement: String
        let problem: String
        var testDescription: String { name }

        var entry: String { CassetteValidationTests.entry.replacingOccurrences(of: original, with: replacement) }
    }

    static let hostile: [Hostile] = [
        Hostile(
            name: "chunk sizes [12, -7] on a 5-byte body", original: #""_chunks": [{"size": 2, "time": 0}, {"size": 3"#,
            replacement: #""_chunks": [{"size": 12, "time": 0}, {"size": -7"#,
            problem: "response._chunks[1].size: -7 is not a chunk size (0 bytes or more)"),
        Hostile(
            name: "a chunk time of 1e300 ms", original: #"{"size": 3, "time": 10}"#,
            replacement: #"{"size": 3, "time": 1e300}"#,
            problem: "response._chunks[1].time: 1e+300 is not a time after the head (0 to 86400000 ms)"),
        Hostile(
            name: "a negative chunk time", original: #"{"size": 2, "time": 0}"#,
            replacement: #"{"size": 2, "time": -1}"#,
            problem: "response._chunks[0].time: -1.0 is not a time after the head (0 to 86400000 ms)"),
        Hostile(
            name: "chunk times going back", original: #"{"size": 2, "time": 0}, {"size": 3, "time": 10}"#,
            replacement: #"{"size": 2, "time": 10}, {"size": 3, "time": 5}"#,
            problem: "response._chunks[1].time: 5.0 ms comes before the chunk before it (10.0 ms)"),
        Hostile(
            name: "chunks that do not add up to the body", original: #"{"size": 3, "time": 10}"#,
            replacement: #"{"size": 2, "time": 10}"#,
            problem: "response._chunks: the sizes add up to 4 bytes, but the body has 5"),
        Hostile(
            name: "status -1", original: #""status": 200"#, replacement: #""status": -1"#,
            problem: "response.status: -1 is not an HTTP status (100–599, or 0 for no response)"),
        Hostile(
            name: "status Int.max", original: #""status": 200"#, replacement: #""status": 9223372036854775807"#,
            problem: "response.status: 9223372036854775807 is not an HTTP status (100–599, or 0 for no response)"),
        Hostile(
            name: "HTTP version 0.1", original: #""statusText": "OK", "httpVersion": "HTTP/1.1""#,
            replacement: #""statusText": "OK", "httpVersion": "0.1""#,
            problem: #"response.httpVersion: "0.1" is not an HTTP version (HTTP/1.0, HTTP/1.1, HTTP/2, HTTP/3, h2, h3)"#
        ),
        Hostile(
            name: "CR LF inside a response header value", original: #""value": "fine""#,
            replacement: #""value": "fine\r\nSet-Cookie: session=stolen""#,
            problem: #"response.headers[1].value: the value of "X-Note" contains a forbidden control character (0x0D)"#),
        Hostile(
            name: "a request header name with a space", original: #"{"name": "Accept", "value": "text/plain"}"#,
            replacement: #"{"name": "Acc ept", "value": "text/plain"}"#,
            problem: #"request.headers[0].name: "Acc ept" is not a header name (a token)"#),
        Hostile(
            name: "a method that is not a token", original: #""method": "GET""#, replacement: #""method": "GE T""#,
            problem: #"request.method: "GE T" is not an HTTP method (a token)"#),
        Hostile(
            name: "a URL that is not http", original: #""url": "http://api.test/items""#,
            replacement: #""url": "file:///etc/passwd""#,
            problem: #"request.url: "file:///etc/passwd" is not an absolute http, https, ws or wss URL"#),
        Hostile(
            name: "a body marked base64 that is not",
            original: #""text": "hello"}"#, replacement: #""text": "%%%", "encoding": "base64"}"#,
            problem: "response.content.text: is marked base64 but is not base64"),
        Hostile(
            name: "a side file outside the cassette's folder",
            original: #""text": "hello"}"#, replacement: #""_file": "../../etc/passwd"}"#,
            problem: #"response.content._file: "../../etc/passwd" lies outside the cassette's folder"#),
        Hostile(
            name: "a WebSocket message of another opcode",
            original: #""cache": {},"#,
            replacement: #""cache": {}, "_webSocketMessages": [{"type": "send", "time": 1, "opcode": 9, "data": ""}],"#,
            problem: "_webSocketMessages[0].opcode: 9 is neither 1 (text) nor 2 (binary)"),
        Hostile(
            name: "a binary WebSocket message that is not base64",
            original: #""cache": {},"#,
            replacement:
                #""cache": {}, "_webSocketMessages": [{"type": "receive", "time": 1, "opcode": 2, "data": "%"}],"#,
            problem: "_webSocketMessages[0].data: a binary message's data is not base64"),
        Hostile(
            name: "a WebSocket message neither sent nor received",
            original: #""cache": {},"#,
            replacement: #""cache": {}, "_webSocketMessages": [{"type": "ping", "time": 1, "opcode": 1, "data": ""}],"#,
            problem: #"_webSocketMessages[0].type: "ping" is neither "send" nor "receive""#),
    ]

    @Test("The entry every case changes is valid: it replays its body in its chunks")
    func validEntry() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        try Self.document([Self.entry]).write(to: folder.cassette("valid.har"))
        let transport = try folder.transport("valid.har", mode: .replayOnly)
        let streaming = try await Request {
            Url("http://api.test/items"); Using(transport)
        }.stream()
        var chunks: [String] = []
        for try await chunk in streaming.body { chunks.append(String(decoding: chunk, as: UTF8.self)) }
        #expect(chunks == ["he", "llo"])
    }

    @Test("A hostile field is an error naming the entry and the field, not a crash", arguments: Self.hostile)
    func hostileField(_ hostile: Hostile) throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let cassette = folder.cassette("hostile.har")
        try Self.document([Self.entry, hostile.entry]).write(to: cassette)
        var configuration = RecordingTransport.Configuration()
        configuration.pacing = RequestClock(TestClock())
        let error = #expect(throws: RequestError.self) {
            try folder.transport("hostile.har", mode: .replayOnly, configuration: configuration)
        }
        #expect(error?.kind == .transport)
        #expect(
            error?.detail == "the cassette \(cassette.path) has 1 invalid field:\n  - entry 2, \(hostile.problem)")
    }

    @Test("Every bad field of every entry is listed in one error")
    func everyProblem() throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let cassette = folder.cassette("many.har")
        try Self.document([Self.hostile[5].entry, Self.entry, Self.hostile[7].entry]).write(to: cassette)
        let error = #expect(throws: RequestError.self) { try folder.transport("many.har", mode: .recordNew) }
        #expect(
            error?.detail == """
                the cassette \(cassette.path) has 2 invalid fields:
                  - entry 1, \(Self.hostile[5].problem)
                  - entry 3, \(Self.hostile[7].problem)
                """)
    }

    @Test("A recorded stream whose body redaction changed keeps chunks that add up to the body it stores")
    func redactedStreamChunks() {
        let chunks = [HARChunk(size: 4, time: 0), HARChunk(size: 6, time: 5), HARChunk(size: 2, time: 9)]
        #expect(Cassette.fitted(chunks, to: 12).map(\.size) == [4, 6, 2])
        #expect(Cassette.fitted(chunks, to: 20).map(\.size) == [4, 6, 10])
        #expect(Cassette.fitted(chunks, to: 5).map(\.size) == [4, 1, 0])
        #expect(Cassette.fitted([], to: 3).map(\.size) == [3])
        #expect(Cassette.fitted(chunks, to: 5).map(\.time) == [0, 5, 9])
    }
}
