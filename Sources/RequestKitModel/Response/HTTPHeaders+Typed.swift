import Foundation

extension HTTPHeaders {
    /// `Content-Length` as a number, when present and valid.
    ///
    /// ```swift
    /// response.headers.contentLength  // 1024
    /// ```
    public var contentLength: Int? {
        self["Content-Length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    /// `Content-Type` parsed as a media type.
    ///
    /// ```swift
    /// response.headers.contentType?.essence  // "application/json"
    /// ```
    public var contentType: MediaType? { self["Content-Type"].map(MediaType.init(parsing:)) }

    /// `ETag`, as sent (with its quotes and any `W/` prefix), ready for `If-None-Match`.
    ///
    /// ```swift
    /// Header.Any(.ifNoneMatch, response.headers.etag ?? "")
    /// ```
    public var etag: String? { self["ETag"] }

    /// `Last-Modified` as a date, when it is a valid HTTP-date.
    ///
    /// ```swift
    /// response.headers.lastModified  // 2015-10-21 07:28:00 +0000
    /// ```
    public var lastModified: Date? { self["Last-Modified"].flatMap(HTTPDateFormat.date(from:)) }

    /// `Location` resolved against `base` when relative.
    ///
    /// ```swift
    /// response.headers.location(relativeTo: response.url)
    /// ```
    public func location(relativeTo base: URL? = nil) -> URL? {
        self["Location"].flatMap { URL(string: $0, relativeTo: base)?.absoluteURL }
    }

    /// `Location` as a URL, relative or absolute as sent.
    ///
    /// ```swift
    /// response.headers.location?.path  // "/jobs/1"
    /// ```
    public var location: URL? { self["Location"].flatMap { URL(string: $0) } }

    /// `Retry-After` as a number of seconds from `now`: the delay-seconds form, or an HTTP-date.
    ///
    /// ```swift
    /// response.headers.retryAfter()  // 120 for "Retry-After: 120"
    /// ```
    public func retryAfter(now: Date = Date()) -> Double? {
        guard let value = self["Retry-After"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Int(value) { return seconds >= 0 ? Double(seconds) : nil }
        guard let date = HTTPDateFormat.date(from: value) else { return nil }
        return Swift.max(0, date.timeIntervalSince(now))
    }

    /// Every cookie the response set, one per `Set-Cookie` field (and per cookie of a field that a platform
    /// joined with commas).
    ///
    /// ```swift
    /// response.headers.cookies.map(\.name)  // ["session", "theme"]
    /// ```
    public var cookies: [ResponseCookie] {
        values(for: "Set-Cookie").flatMap(ResponseCookie.parseAll)
    }
}
