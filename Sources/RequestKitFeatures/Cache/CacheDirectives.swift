import RequestKitModel

/// The `Cache-Control` directives the cache's rules read (RFC 9111 §5.2), each looked up once, when the field is
/// parsed: a request's when the cache first sees it, a stored response's when it is stored. A hit then reads flags
/// and numbers instead of searching the directives by name.
///
/// Each value is what ``CacheControl`` reads for the first occurrence of the directive: a duplicate does not count,
/// and a number that is not delta-seconds is ``CacheControl/Seconds/invalid``.
///
/// ```swift
/// let directives = CacheDirectives(CacheControl(["max-age=60, must-revalidate"]))
/// #expect(directives.maxAge == .valid(60) && directives.mustRevalidate)
/// ```
struct CacheDirectives: Sendable, Hashable {
    /// `max-age`: a response's freshness lifetime; the oldest response a request accepts.
    let maxAge: CacheControl.Seconds
    /// `min-fresh` (request): how long a response must stay fresh.
    let minFresh: CacheControl.Seconds
    /// `max-stale` (request): how stale a response may be.
    let maxStale: CacheControl.Seconds
    /// `stale-while-revalidate` (response, RFC 5861).
    let staleWhileRevalidate: CacheControl.Seconds
    /// `stale-if-error` (request or response, RFC 5861).
    let staleIfError: CacheControl.Seconds
    /// `no-cache`, with or without field names: validate before use.
    let noCache: Bool
    /// `no-store`.
    let noStore: Bool
    /// `must-revalidate` (response): never served stale.
    let mustRevalidate: Bool
    /// `only-if-cached` (request).
    let onlyIfCached: Bool
    /// `public` (response): allows the heuristic lifetime for any status.
    let isPublic: Bool

    /// No directives: what a message without `Cache-Control` has.
    static let none = CacheDirectives()

    /// No directives, made in place: a message without `Cache-Control` (most requests) does not read a global.
    private init() {
        maxAge = .absent
        minFresh = .absent
        maxStale = .absent
        staleWhileRevalidate = .absent
        staleIfError = .absent
        noCache = false
        noStore = false
        mustRevalidate = false
        onlyIfCached = false
        isPublic = false
    }

    /// The directives `control` holds.
    init(_ control: CacheControl) {
        maxAge = control.seconds("max-age")
        minFresh = control.seconds("min-fresh")
        maxStale = control.seconds("max-stale")
        staleWhileRevalidate = control.seconds("stale-while-revalidate")
        staleIfError = control.seconds("stale-if-error")
        noCache = control.contains("no-cache")
        noStore = control.contains("no-store")
        mustRevalidate = control.contains("must-revalidate")
        onlyIfCached = control.contains("only-if-cached")
        isPublic = control.contains("public")
    }

    /// The directives of `headers`' `Cache-Control` fields; ``none`` without one, parsing nothing.
    init(_ headers: HTTPHeaders) {
        guard headers.contains("Cache-Control") else {
            self.init()
            return
        }
        self.init(CacheControl(headers))
    }
}
