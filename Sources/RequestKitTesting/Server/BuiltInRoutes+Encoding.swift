import Foundation
import RequestKit

extension BuiltInRoutes {
    /// `/gzip` and `/deflate`: the echo document plus `"gzipped": true` or `"deflated": true`, sent with
    /// `Content-Encoding: gzip` (RFC 1952) or `deflate` (the zlib format, RFC 1950), using stored DEFLATE blocks.
    func encoded(_ request: TestRequest, gzip: Bool) -> TestResponse {
        var members = echoMembers(request)
        members[gzip ? "gzipped" : "deflated"] = .bool(true)
        let document = Data(JSONValue.object(members).serialized().utf8)
        return TestResponse(
            headers: [("Content-Type", "application/json"), ("Content-Encoding", gzip ? "gzip" : "deflate")],
            body: .data(gzip ? StoredDeflate.gzip(document) : StoredDeflate.zlib(document)))
    }

    /// `/brotli` and `/zstd`: the echo document plus `"brotli": true` or `"zstd": true`, compressed by the system
    /// library and sent with `Content-Encoding: br` or `zstd` (Linux only; `501` elsewhere).
    func encoded(_ request: TestRequest, coding: ContentCoding) -> TestResponse {
        var members = echoMembers(request)
        members[coding == .brotli ? "brotli" : coding.name] = .bool(true)
        let document = Data(JSONValue.object(members).serialized().utf8)
        guard let body = try? ContentCompressor.compress(document, with: coding) else {
            return .text("\(coding.name) is not available on this platform", status: 501)
        }
        return TestResponse(
            headers: [("Content-Type", "application/json"), ("Content-Encoding", coding.name)], body: .data(body))
    }
}
