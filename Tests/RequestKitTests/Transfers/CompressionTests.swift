import Foundation
import RequestKit
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("Compressed responses", .wallClock)
struct CompressionTests {
    @Test("gzip and deflate bodies arrive decoded, byte for byte", arguments: [true, false])
    func decoded(gzip: Bool) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let document = Data((0..<2000).map { "line \($0) of a compressible document\n" }.joined().utf8)
        server.route("/encoded") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain"), ("Content-Encoding", gzip ? "gzip" : "deflate")],
                body: .data(gzip ? StoredDeflate.gzip(document) : StoredDeflate.zlib(document)))
        }
        let body = try await Request { Url(server.url("/encoded")) }.data()
        #expect(body == document)
        var streamed = Data()
        let response = try await Request { Url(server.url("/encoded")) }.stream()
        for try await chunk in response { streamed.append(chunk) }
        #expect(streamed == document)
    }

    @Test("The built-in /gzip and /deflate routes arrive as their JSON documents", arguments: ["gzip", "deflate"])
    func builtInRoutes(route: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let json = try await Request { Url(server.url("/\(route)")) }.json()
        #expect(json[route == "gzip" ? "gzipped" : "deflated"] == true)
        #expect(json["path"].string == "/\(route)")
    }
}
