import Foundation

extension CachedResponse {
    /// The response the cache gives `request` from this stored one, marked with `status`: a `304 Not Modified`
    /// when the request's own precondition says the client already has it (RFC 9111 §4.3.2: `If-None-Match`
    /// matching the stored `ETag`, or else `If-Modified-Since` no earlier than the stored `Last-Modified`), without
    /// a body for HEAD, the range asked for as a `206` (``ByteRange``), else the stored response. Its `Age` is the stored response's current age at `now`, in whole
    /// seconds (RFC 9111 §5.1).
    package func answer(to request: CacheRequest, status: CacheStatus, at now: Date) -> Response {
        var response = self.response(status)
        response.headers.set("Age", String(Int(min(Freshness.age(of: self, at: now), Double(Int32.max)))))
        if isNotModified(for: request) {
            response.status = HTTPStatus(code: 304)
            for name in Self.fieldsKeptOn304 { response.headers.remove(name) }
            response.body = Data()
        } else if let range = request.headers["Range"].flatMap({ ByteRange($0, length: body.count) }),
            self.status == 200
        {
            response.status = HTTPStatus(code: 206)
            response.headers.set("Content-Range", "bytes \(range.first)-\(range.last)/\(body.count)")
            response.headers.remove("Content-Length")
            response.body = request.method == "HEAD" ? Data() : body.subdata(in: range.first..<range.last + 1)
        } else if request.method == "HEAD" {
            response.body = Data()
        }
        return response
    }

    /// Whether the request's `If-None-Match` or `If-Modified-Since` says it already has this response.
    func isNotModified(for request: CacheRequest) -> Bool {
        guard (200..<300).contains(status) else { return false }
        if let noneMatch = request.headers["If-None-Match"] {
            guard let entityTag else { return false }
            return EntityTags.list(noneMatch, contains: entityTag)
        }
        guard let since = request.headers["If-Modified-Since"].flatMap({ HTTPDateFormat.strictDate(from: $0) }),
            let modified = fields.lastModified ?? fields.date
        else { return false }
        return modified <= since
    }
}
