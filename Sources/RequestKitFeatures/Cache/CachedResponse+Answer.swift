import Foundation
import RequestKitModel

extension CachedResponse {
    /// The response the cache gives `request` from this stored one, marked with `status`: a `304 Not Modified`
    /// when the request's own precondition says the client already has it (RFC 9111 §4.3.2: `If-None-Match`
    /// matching the stored `ETag`, or else `If-Modified-Since` no earlier than the stored `Last-Modified`), without
    /// a body for HEAD, the range asked for as a `206` (``ByteRange``), else the stored response. Its `Age` is the stored response's current age at `now`, in whole
    /// seconds (RFC 9111 §5.1).
    package func answer(to request: CacheRequest, status: CacheStatus, at now: Date) -> Response {
        // The parts are settled first and the response made once: each copy of a `Response` retains and releases
        // every field of it.
        var headers = headers(atAge: Int(min(Freshness.age(of: self, at: now), Double(Int32.max))))
        var code = self.status
        var body = self.body
        if isNotModified(for: request) {
            code = 304
            for name in Self.fieldsKeptOn304 { headers.remove(name) }
            body = Data()
        } else if let range = request.headers["Range"].flatMap({ ByteRange($0, length: body.count) }),
            self.status == 200
        {
            code = 206
            headers.set("Content-Range", "bytes \(range.first)-\(range.last)/\(body.count)")
            headers.remove("Content-Length")
            body = request.method == "HEAD" ? Data() : body.subdata(in: range.first..<range.last + 1)
        } else if request.method == "HEAD" {
            body = Data()
        }
        return Response(status: HTTPStatus(code: code), headers: headers, body: body, url: url, cacheStatus: status)
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

    /// `value` in decimal digits, written straight into the string's storage (an `Age` value is short, and
    /// `String(_:)` goes through the generic conversion on every hit).
    static func decimal(_ value: Int) -> String {
        guard value >= 0 else { return String(value) }
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        return String(unsafeUninitializedCapacity: digits) { buffer in
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            return digits
        }
    }
}
