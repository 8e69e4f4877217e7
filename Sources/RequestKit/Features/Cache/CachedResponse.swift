import Foundation

/// A response as a ``ResponseCache`` keeps it: the status, the stored headers and body, the URL, when it was
/// requested and received (for its age, RFC 9111 §4.2.3), and the request's values of the fields its `Vary` names
/// (its secondary key, §4.1).
///
/// Hop-by-hop fields and `Set-Cookie` are not stored: a response served again must not set cookies again.
///
/// ```swift
/// let stored = CachedResponse(response, request: request, requestTime: sent, responseTime: received)
/// let freshness = Freshness(of: stored, at: now)
/// ```
struct CachedResponse: Sendable, Hashable {
    /// The fields never stored: hop-by-hop fields (RFC 9110 §7.6.1) and `Set-Cookie`.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authorization", "set-cookie", "set-cookie2",
    ]

    var status: Int
    /// The stored fields; the values freshness reads from them are parsed once, when they are set.
    var headers: HTTPHeaders {
        didSet { fields = Fields(headers) }
    }
    var body: Data
    var url: URL?
    var requestTime: Date
    var responseTime: Date
    /// The request's value of each field `Vary` names, lower-cased names in the order named; nil when absent.
    var varyingFields: [VaryingField]
    /// What freshness and validation read from ``headers``, parsed once.
    private(set) var fields: Fields

    /// The values of the stored fields that freshness and validation read, parsed when the fields are set (an
    /// HTTP-date takes microseconds to parse; a hit must not pay for it).
    struct Fields: Sendable, Hashable {
        let cacheControl: CacheControl
        /// `Date`, nil when absent or not a date.
        let date: Date?
        /// `Expires`: nil when absent, `.distantPast` when it is not a date (already expired, RFC 9111 §5.3).
        let expires: Date?
        /// `Last-Modified`, nil when absent or not a date.
        let lastModified: Date?
        /// `Age` in seconds: 0 when absent or not a non-negative integer.
        let age: Double

        init(_ headers: HTTPHeaders) {
            cacheControl = CacheControl(headers)
            date = headers["Date"].flatMap(HTTPDateFormat.date(from:))
            expires = headers["Expires"].map { HTTPDateFormat.date(from: $0) ?? .distantPast }
            lastModified = headers["Last-Modified"].flatMap(HTTPDateFormat.date(from:))
            if let value = headers["Age"]?.trimmingCharacters(in: .whitespaces),
                case .valid(let seconds) = CacheControl.deltaSeconds(value)
            {
                age = Double(seconds)
            } else {
                age = 0
            }
        }
    }

    /// A field a stored response varies on, with the request's normalised value (nil when the request had none).
    struct VaryingField: Sendable, Hashable, Codable {
        let name: String
        let value: String?
    }

    init(
        status: Int, headers: HTTPHeaders, body: Data, url: URL?, requestTime: Date, responseTime: Date,
        varyingFields: [VaryingField]
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyingFields = varyingFields
        fields = Fields(headers)
    }

    /// `response` to `request` as stored.
    init(_ response: Response, request: CacheRequest, requestTime: Date, responseTime: Date) {
        var headers = HTTPHeaders()
        for field in response.headers where !Self.unstoredFields.contains(field.name.lowercased()) {
            headers.add(field.name, field.value)
        }
        self.init(
            status: response.statusCode, headers: headers, body: response.body, url: response.url,
            requestTime: requestTime, responseTime: responseTime,
            varyingFields: Self.varyNames(of: response.headers).map {
                VaryingField(name: $0, value: request.normalizedValue(of: $0))
            })
    }

    /// The lower-cased field names of `headers`' `Vary` fields, `*` included.
    static func varyNames(of headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for value in headers.values(for: "Vary") {
            for name in value.split(separator: ",") {
                let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
                if !trimmed.isEmpty, !names.contains(trimmed) { names.append(trimmed) }
            }
        }
        return names
    }

    /// Whether this response may answer `request`: every field it varies on has the same value (RFC 9111 §4.1).
    func matches(_ request: CacheRequest) -> Bool {
        varyingFields.allSatisfy { $0.name != "*" && request.normalizedValue(of: $0.name) == $0.value }
    }

    /// The directives of the stored `Cache-Control`.
    var cacheControl: CacheControl { fields.cacheControl }

    /// The strong or weak entity tag, when there is one.
    var entityTag: String? { headers["ETag"] }

    /// The `Last-Modified` value, when there is one.
    var lastModified: String? { headers["Last-Modified"] }

    /// What the cache counts against its size: the body and the header text.
    var byteCount: Int {
        body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            + (url?.absoluteString.utf8.count ?? 0) + 64
    }

    /// The response to hand to the caller, marked with `status`.
    func response(_ status: CacheStatus) -> Response {
        var response = Response(status: HTTPStatus(code: self.status), headers: headers, body: body, url: url)
        response.cacheStatus = status
        return response
    }

    /// The fields a `304 Not Modified` must not replace in a stored response (RFC 9111 §3.2): the body's framing
    /// and encoding describe the stored bytes, not the 304.
    static let fieldsKeptOn304: Set<String> = ["content-length", "content-encoding", "content-range", "content-type"]

    /// This response updated by a `304 Not Modified` (RFC 9111 §4.3.4): each field the 304 carries replaces the
    /// stored fields of that name (except framing fields), and its age starts again.
    func freshened(with notModified: HTTPHeaders, requestTime: Date, responseTime: Date) -> CachedResponse {
        var updated = self
        var replaced: Set<String> = []
        for field in notModified {
            let name = field.name.lowercased()
            guard !Self.unstoredFields.contains(name), !Self.fieldsKeptOn304.contains(name) else { continue }
            if replaced.insert(name).inserted { updated.headers.remove(field.name) }
            updated.headers.add(field.name, field.value)
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// Whether a `304` with `headers` refers to this stored response (RFC 9111 §4.3.4): the same strong entity tag,
    /// else the same `Last-Modified`, else (no validator in the 304) a stored response without one either.
    func isSelected(by headers: HTTPHeaders) -> Bool {
        if let tag = headers["ETag"] {
            guard let entityTag else { return false }
            return EntityTags.weaklyEqual(tag, entityTag)
        }
        if let modified = headers["Last-Modified"] {
            return lastModified == modified
        }
        return true
    }
}
