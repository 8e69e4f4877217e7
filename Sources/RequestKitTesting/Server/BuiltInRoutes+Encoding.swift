import Foundation

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
}
