import Foundation
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitDSL
@testable import RequestKitNativeTransport

@Suite("Body.compressed: request bodies compressed when the request is built", .wallClock)
struct CompressedBodyTests {
    static let text = String(repeating: "a line of a log that repeats itself\n", count: 200)

    static var codings: [ContentCoding] {
        [.gzip, .deflate, .brotli, .zstd].filter(\.isAvailable)
    }

    @Test(
        "The server receives the compressed bytes with Content-Encoding, and they decode to the body",
        arguments: WireTransport.all)
    func sent(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for coding in Self.codings {
            let response = try await Request {
                Url(server.url("/anything"))
                Method(.post)
                Body(Self.text, contentType: .text).compressed(coding)
                Using(transport.transport)
            }.send()
            #expect(response.statusCode == 200)
            let received = try #require(server.requests.last)
            #expect(received.header("Content-Encoding") == coding.name)
            #expect(received.header("Content-Type") == "text/plain")
            #expect(received.header("Content-Length") == String(received.body.count))
            #expect(received.body.count < Self.text.utf8.count / 10, "\(coding)")
            let decoder = try #require(
                try ContentDecoder(codings: [coding.name], maxBytes: .max, maxRatio: .max))
            #expect(try decoder.decode(received.body) == Data(Self.text.utf8), "\(coding)")
            try decoder.finish()
        }
    }

    @Test("A JSON body is compressed after it is encoded with the request's encoder")
    func json() throws {
        struct Note: Encodable, Sendable { let text: String }
        let request = try Request {
            Url("http://127.0.0.1:8080/notes")
            Method(.post)
            Body(Note(text: "hi")).compressed(.gzip)
        }.urlRequest()
        let sent = try #require(request.httpBody)
        let decoder = try #require(try ContentDecoder(codings: ["gzip"], maxBytes: .max))
        #expect(try decoder.decode(sent) == Data(#"{"text":"hi"}"#.utf8))
        #expect(request.value(forHTTPHeaderField: "Content-Encoding") == "gzip")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test("A file body is a request problem, never sent uncompressed under Content-Encoding")
    func fileBody() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("compressed-\(UUID().uuidString)")
        try Data("data".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let error = try #require(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:8080/upload")
                Method(.put)
                Body(file: file).compressed(.gzip)
            }.urlRequest()
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.bodyEncodingFailed])
        #expect(
            error.problems.first?.message
                == "a body read from a file cannot be compressed as it is sent; compress the file")
    }
}
