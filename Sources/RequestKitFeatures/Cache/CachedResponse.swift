import Foundation
import RequestKitModel

/// A response as a ``ResponseCache`` keeps it: the status, the stored headers and body, the URL, when it was
/// requested and received (for its age, RFC 9111 §4.2.3), and the request's values of the fields its `Vary` names
/// (its secondary key, §4.1).
///
/// Hop-by-hop fields (and those `Connection` names) are not stored. `Set-Cookie` is stored, as RFC 9111 asks, and
/// handed back with the response; a cookie jar takes cookies only from responses that came from the network or
/// from a `304`, so one served again never sets them again.
///
/// ```swift
/// let stored = CachedResponse(response, request: request, requestTime: sent, responseTime: received)
/// let freshness = Freshness(of: stored, at: now)
/// ```
package struct CachedResponse: Sendable, Hashable {
    /// The fields never stored (RFC 9111 §3.1): hop-by-hop fields (RFC 9110 §7.6.1) and the proxy's own.
    static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "trailer",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// The names of the fields of `headers` that are not stored: ``unstoredFields`` and those `Connection` names.
    static func unstoredNames(in headers: HTTPHeaders) -> Set<String> {
        var names = unstoredFields
        for value in headers.values(for: "Connection") {
            for name in value.split(separator: ",") {
                names.insert(name.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        return names
    }

    /// The parts, in one object that every copy shares: a hit copies a stored response out of the store and into
    /// its decision, and a copy retains the object once instead of each of the parts (headers, body, URL, varying
    /// fields). A change makes a new object.
    private var box: Box

    /// What every copy of a stored response shares.
    private final class Box: @unchecked Sendable {
        // Safe: `parts` never changes; `answered` is read and written only under `lock`.
        let parts: Parts
        /// The headers of the latest answer with its `Age`, and that age in whole seconds: one reference, so a
        /// stored response that is never answered grows by a word.
        private var answered: AnsweredHeaders?

        init(_ parts: Parts) { self.parts = parts }

        /// The stored headers with `Age: age`, made once per whole second of age: a hot response answers many
        /// requests a second, and making the list copies every field of it.
        func headers(atAge age: Int) -> HTTPHeaders {
            if let answered = lock.withLock({ answered }), answered.age == age { return answered.headers }
            var headers = parts.headers
            let value = CachedResponse.decimal(age)
            if parts.fields.hasAge { headers.set("Age", value) } else { headers.add("Age", value) }
            let made = AnsweredHeaders(age: age, headers: headers)
            lock.withLock { answered = made }
            return headers
        }

        /// An answer's headers and the age they carry.
        private final class AnsweredHeaders: Sendable {
            let age: Int
            let headers: HTTPHeaders

            init(age: Int, headers: HTTPHeaders) {
                self.age = age
                self.headers = headers
            }
        }

        /// The lock of ``answered``, one of ``locks``: objects are 16-byte aligned, so the address's next bits
        /// pick it.
        private var lock: NSLock {
            Self.locks[Int((UInt(bitPattern: ObjectIdentifier(self)) >> 4) % UInt(Self.locks.count))]
        }

        /// The locks of every box's latest answer, shared by all of them: a lock each would double a small
        /// stored response's memory.
        private static let locks = (0..<8).map { _ in NSLock() }
    }

    /// The stored headers with `Age: age` (in whole seconds), as an answer at that age carries them.
    func headers(atAge age: Int) -> HTTPHeaders { box.headers(atAge: age) }

    /// The parts of a stored response.
    private struct Parts: Sendable, Hashable {
        var status: Int
        var headers: HTTPHeaders {
            didSet { fields = Fields(headers) }
        }
        var body: Data
        var url: URL?
        var requestTime: Date
        var responseTime: Date
        var varyingFields: [VaryingField]
        private(set) var fields: Fields

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
    }

    /// The stored parts with `change` made, in a new object (the old one may be shared).
    private mutating func update(_ change: (inout Parts) -> Void) {
        var parts = box.parts
        change(&parts)
        box = Box(parts)
    }

    var status: Int {
        get { box.parts.status }
        set { update { $0.status = newValue } }
    }
    /// The stored fields; the values freshness reads from them are parsed once, when they are set.
    var headers: HTTPHeaders {
        get { box.parts.headers }
        set { update { $0.headers = newValue } }
    }
    var body: Data {
        get { box.parts.body }
        set { update { $0.body = newValue } }
    }
    var url: URL? {
        get { box.parts.url }
        set { update { $0.url = newValue } }
    }
    var requestTime: Date {
        get { box.parts.requestTime }
        set { update { $0.requestTime = newValue } }
    }
    var responseTime: Date {
        get { box.parts.responseTime }
        set { update { $0.responseTime = newValue } }
    }
    /// The request's value of each field `Vary` names, lower-cased names in the order named; nil when absent.
    var varyingFields: [VaryingField] {
        get { box.parts.varyingFields }
        set { update { $0.varyingFields = newValue } }
    }
    /// What freshness and validation read from ``headers``, parsed once.
    var fields: Fields { box.parts.fields }

    package static func == (lhs: CachedResponse, rhs: CachedResponse) -> Bool {
        lhs.box === rhs.box || lhs.box.parts == rhs.box.parts
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(box.parts) }

    /// The values of the stored fields that freshness and validation read, parsed when the fields are set (an
    /// HTTP-date takes microseconds to parse; a hit must not pay for it).
    struct Fields: Sendable, Hashable {
        /// The `Cache-Control` directives, looked up once.
        let directives: CacheDirectives
        /// Whether there is an `Age` field (an answer replaces it; without one, its own is appended). Declared
        /// here, it takes bytes the alignment of the dates below leaves free.
        let hasAge: Bool
        /// `Date`, nil when absent or not a date.
        let date: Date?
        /// `Expires`: nil when absent, `.distantPast` when it is not a date (already expired, RFC 9111 §5.3).
        let expires: Date?
        /// `Last-Modified`, nil when absent or not a date.
        let lastModified: Date?
        /// `Age` in seconds: 0 when absent or not a non-negative integer.
        let age: Double

        init(_ headers: HTTPHeaders) {
            directives = CacheDirectives(headers)
            date = headers["Date"].flatMap { HTTPDateFormat.strictDate(from: $0) }
            let expiresValues = headers.values(for: "Expires")
            expires =
                expiresValues.isEmpty
                ? nil
                : expiresValues.count == 1
                    ? HTTPDateFormat.strictDate(from: expiresValues[0]) ?? .distantPast
                    : .distantPast
            lastModified = headers["Last-Modified"].flatMap { HTTPDateFormat.strictDate(from: $0) }
            let ageValue = headers["Age"]
            age = ageValue.map(Self.age(from:)) ?? 0
            hasAge = ageValue != nil
        }

        /// An `Age` value in seconds: its first element's digits, before any parameter (`7200, 0` is 7200;
        /// `7200;x=1` is 7200); 0 for anything else (`7200.0`, `abc`, `-1`), which ignores it.
        static func age(from value: String) -> Double {
            let first = value.split(separator: ",", omittingEmptySubsequences: false).first ?? ""
            let number = first.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
            guard case .valid(let seconds) = CacheControl.deltaSeconds(number.trimmingCharacters(in: .whitespaces))
            else { return 0 }
            return Double(seconds)
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
        box = Box(
            Parts(
                status: status, headers: headers, body: body, url: url, requestTime: requestTime,
                responseTime: responseTime, varyingFields: varyingFields))
    }

    /// `response` to `request` as stored.
    init(_ response: Response, request: CacheRequest, requestTime: Date, responseTime: Date) {
        var headers = HTTPHeaders()
        let unstored = Self.unstoredNames(in: response.headers)
        for field in response.headers where !unstored.contains(field.name.lowercased()) {
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

    /// Whether this response may answer `request`: every field it varies on has the same value (RFC 9111 §4.1),
    /// or, for `Accept-Language`, the request's favourite language is the response's `Content-Language`.
    func matches(_ request: CacheRequest) -> Bool {
        varyingFields.allSatisfy { field in
            guard field.name != "*" else { return false }
            if request.normalizedValue(of: field.name) == field.value { return true }
            guard field.name == "accept-language", let language = headers["Content-Language"] else { return false }
            return request.selectsLanguage(language)
        }
    }

    /// The directives of the stored `Cache-Control`.
    var directives: CacheDirectives { fields.directives }

    /// The strong or weak entity tag, when there is one.
    package var entityTag: String? { headers["ETag"] }

    /// The `Last-Modified` value, when there is one.
    package var lastModified: String? { headers["Last-Modified"] }

    /// What the structures holding a stored response in memory take beyond its text and body: the URL, the parsed
    /// fields, the arrays, a store's entry and the allocator's share. The `cache` benchmark measured about 0.8 KiB
    /// per 1 KiB response on Linux (resident growth over stored responses); counted so that a store's bound in
    /// bytes bounds its memory.
    static let structureBytes = 1024

    /// What the cache counts against its size: the body, the header text, the URL and ``structureBytes``.
    var byteCount: Int {
        body.count + headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            + (url?.absoluteString.utf8.count ?? 0) + Self.structureBytes
    }

    /// The fields a `304 Not Modified` must not replace in a stored response (RFC 9111 §3.2): `Content-Length`, and
    /// `Content-Encoding`, since the transports store the body decoded.
    static let fieldsKeptOn304: Set<String> = ["content-length", "content-encoding"]

    /// This response updated by a `304 Not Modified` (RFC 9111 §4.3.4): each field the 304 carries replaces the
    /// stored fields of that name (except framing fields), and its age starts again.
    func freshened(with notModified: HTTPHeaders, requestTime: Date, responseTime: Date) -> CachedResponse {
        var updated = self
        var replaced: Set<String> = []
        let unstored = Self.unstoredNames(in: notModified)
        for field in notModified {
            let name = field.name.lowercased()
            guard !unstored.contains(name), !Self.fieldsKeptOn304.contains(name) else { continue }
            if replaced.insert(name).inserted { updated.headers.remove(field.name) }
            updated.headers.add(field.name, field.value)
        }
        updated.requestTime = requestTime
        updated.responseTime = responseTime
        return updated
    }

    /// Whether a `304` with `headers` refers to this stored response (RFC 9111 §4.3.4): the same strong entity tag,
    /// else the same `Last-Modified`, else (no validator in the 304) a stored response without one either.
    package func isSelected(by headers: HTTPHeaders) -> Bool {
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
