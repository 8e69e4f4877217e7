import Foundation
import RequestKitModel

/// A private HTTP cache (RFC 9111) that clients and requests share: it stores responses and answers later requests
/// from storage while they are fresh, revalidates them with the server when they are not, and runs on every
/// transport, since it is a stage of the pipeline.
///
/// Give one to a client (``Client/Configuration/cache``) or to a request (``Cache``). What it stores and when it
/// reuses it follows RFC 9111 for a private cache: `Cache-Control` (`max-age`, `no-cache`, `no-store`,
/// `must-revalidate`, `stale-while-revalidate`, `stale-if-error`, and the request's `max-age`, `max-stale`,
/// `min-fresh`, `no-cache`, `no-store`, `only-if-cached`), `Expires`, `Date` and `Age`, the `Last-Modified`
/// heuristic, `Vary`, validation with `ETag` and `Last-Modified`, and invalidation by unsafe methods. Every
/// response says where it came from (``Response/cacheStatus``) and monitors hear of it
/// (``EventMonitor/cacheConsulted(_:status:response:)``).
///
/// ```swift
/// let cache = ResponseCache(.memory(maxBytes: 16 << 20))
/// let client = Client(baseURL: url) { $0.cache = cache }
/// let first = try await client.send(Request { Path("todos") })    // from the network, stored
/// let second = try await client.send(Request { Path("todos") })   // from the cache while fresh
/// ```
///
/// Time comes from `clock`, so a `TestClock` moves a cache's responses from fresh to stale without waiting. On the
/// system's clock (the default) ages are measured against the system's date, as the dates in responses are.
///
/// **Credentials.** A cache is shared by whoever shares it: a client that serves many users hands every user's
/// requests to one cache. So by default a response to a request with credentials (the fields its ``SensitiveData``
/// holds secret: `Authorization`, `Cookie`, `X-Api-Key`, any name with a secret word such as `X-Vendor-Token`) is
/// stored for those credentials alone, keyed by a SHA-256 digest of them (never their values): it answers only a
/// request with the same credentials, never another user's or one without credentials, and a request without
/// credentials is never answered by a response stored for some. `sharesAcrossCredentials: true` keeps one set of
/// responses per URL for everyone, as RFC 9111 allows a private cache (one user's client). Either way, a response
/// to a request with `Authorization` is stored only when it says `public`, `must-revalidate` or `s-maxage`.
public final class ResponseCache: Sendable {
    /// Where the cache keeps responses.
    public struct Storage: Sendable {
        let store: any CacheStore

        init(_ store: any CacheStore) { self.store = store }

        /// In memory, bounded by `maxBytes` (each response counted by its body, fields and URL plus 1 KiB for the
        /// structures that hold it, so that the bound bounds memory), the least recently used URLs evicted first.
        ///
        /// ```swift
        /// let cache = ResponseCache(.memory(maxBytes: 64 << 20))
        /// ```
        /// - Parameter maxBytes: The most the stored responses may take; 32 MiB by default.
        /// - Returns: The storage.
        public static func memory(maxBytes: Int = 32 << 20) -> Storage {
            Storage(MemoryCacheStore(maxBytes: maxBytes))
        }

        /// In files in `directory` (created owner-only when missing), bounded by `maxBytes`, the least recently used
        /// URLs removed first. Several processes may share the directory: every file is written to a temporary
        /// file and renamed into place, and a corrupt or truncated file is a miss and is removed. `Set-Cookie` is
        /// never written, nor a response that varies on `Authorization` or `Cookie`.
        ///
        /// ```swift
        /// let cache = ResponseCache(.disk(at: cachesDirectory.appendingPathComponent("http"), maxBytes: 256 << 20))
        /// ```
        /// - Parameters:
        ///   - directory: The directory of the cache's files, used by this cache alone (files it does not know are
        ///     left alone).
        ///   - maxBytes: The most the files may take; 256 MiB by default.
        /// - Returns: The storage.
        public static func disk(at directory: URL, maxBytes: Int = 256 << 20) -> Storage {
            Storage(DiskCacheStore(directory: directory, maxBytes: maxBytes))
        }
    }

    let store: any CacheStore
    /// The longest body stored while it streams (`stream()`, `download(to:)`).
    public let maxStreamedBodyBytes: Int
    /// Whether a response stored for a request with credentials may answer requests with other credentials, or
    /// none: false unless the cache was made sharing them.
    public let sharesAcrossCredentials: Bool
    private let clock: RequestClock
    private let origin: Date
    private let originReading: Duration
    /// The background refreshes of `stale-while-revalidate`, one per key at a time.
    package let refreshes = BackgroundRefreshes()

    /// Creates a cache keeping responses in `storage`, telling time by `clock`.
    ///
    /// A body that streams to its caller (`stream()`, `download(to:)`) is stored as the caller reads it, when the
    /// response may be stored and the body is at most `maxStreamedBodyBytes`: the disk store writes it to a
    /// temporary file as it arrives, the memory store gathers it (up to its own bound too). It is stored only when
    /// the caller reads it to its end; a body that fails, is cancelled or passes the limit stores nothing.
    ///
    /// ```swift
    /// let cache = ResponseCache(.memory(), clock: RequestClock(testClock))
    /// let downloads = ResponseCache(.disk(at: directory), maxStreamedBodyBytes: 64 << 20)
    /// let oneUser = ResponseCache(.memory(), sharesAcrossCredentials: true)   // an app with one signed-in user
    /// ```
    /// - Parameters:
    ///   - storage: Where responses are kept.
    ///   - maxStreamedBodyBytes: The longest streamed body stored; 16 MiB by default, 0 for none.
    ///   - clock: The clock ages are measured on: the system's by default (its date, read directly), a `TestClock`
    ///     in tests (counted from when the cache was made).
    ///   - sharesAcrossCredentials: Whether a response stored for one request's credentials answers requests with
    ///     other credentials or none; false by default, which keeps it for the same credentials alone.
    public init(
        _ storage: Storage, maxStreamedBodyBytes: Int = 16 << 20, clock: RequestClock = .continuous,
        sharesAcrossCredentials: Bool = false
    ) {
        store = storage.store
        self.maxStreamedBodyBytes = max(0, maxStreamedBodyBytes)
        self.sharesAcrossCredentials = sharesAcrossCredentials
        self.clock = clock
        origin = Date()
        originReading = clock.now
    }

    /// The bytes the stored responses take, as counted against the bound.
    ///
    /// ```swift
    /// print(cache.byteCount)
    /// ```
    public var byteCount: Int { store.byteCount }

    /// Removes every stored response.
    ///
    /// ```swift
    /// cache.removeAll()
    /// ```
    public func removeAll() { store.removeAll() }

    /// Removes the responses stored for `url` (every variant, for every credentials).
    ///
    /// ```swift
    /// cache.remove(url)
    /// ```
    /// - Parameter url: The URL whose responses to forget.
    public func remove(_ url: URL) { store.removeAll(of: CacheRequest.key(for: url)) }

    /// A request as this cache sees it: keyed by the digest of its credentials (``CredentialDigest``, the fields
    /// `sensitiveData` holds secret) unless the cache shares responses across credentials.
    package func request(
        method: String, url: URL, headers: HTTPHeaders, rule: CachePolicy.Rule,
        sensitiveData: @autoclosure () -> SensitiveData
    ) -> CacheRequest {
        // A request without fields (the usual fresh hit) has no credentials: the names are not even read.
        let credentials =
            sharesAcrossCredentials || headers.isEmpty
            ? nil : CredentialDigest(of: headers, sensitiveData: sensitiveData())
        return CacheRequest(method: method, url: url, headers: headers, rule: rule, credentials: credentials)
    }

    /// The current time on the cache's clock.
    package var now: Date {
        // The system's clock counts from the system's date: read it directly, without converting a `Duration`.
        if clock.isSystem { return Date() }
        let elapsed = clock.now - originReading
        let components = elapsed.components
        return origin.addingTimeInterval(Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }

    /// What to do with `request` at `now` (``now``, read once for a hit: the same moment dates its answer's `Age`).
    package func decision(for request: CacheRequest, at now: Date) -> CacheDecision {
        CacheDecision(for: request, stored: store.variants(for: request.key), at: now)
    }

    /// Stores `response` to `request` when it may be stored; returns whether it was.
    @discardableResult
    package func store(_ response: Response, for request: CacheRequest, requestTime: Date) -> Bool {
        guard CacheStorability.canStore(response, for: request) else { return false }
        store.store(
            CachedResponse(response, request: request, requestTime: requestTime, responseTime: now), for: request.key)
        return true
    }

    /// The entry that stores `response` (its body still streaming) to `request` as its consumer reads the body, when
    /// it may be stored and its `Content-Length`, if any, is within ``maxStreamedBodyBytes``; nil otherwise.
    package func streamedEntry(
        for response: Response, to request: CacheRequest, requestTime: Date
    ) -> (any ResponseBodyTap)? {
        guard maxStreamedBodyBytes > 0, CacheStorability.canStore(response, for: request) else { return nil }
        if let length = response.headers["Content-Length"].flatMap(Int.init), length > maxStreamedBodyBytes {
            return nil
        }
        var head = CachedResponse(response, request: request, requestTime: requestTime, responseTime: now)
        head.body = Data()
        guard let sink = store.bodySink(for: request.key, response: head, limit: maxStreamedBodyBytes) else {
            return nil
        }
        return StreamedCacheEntry(sink)
    }

    /// `stored` updated by a `304` with `headers` and stored again.
    package func freshen(
        _ stored: CachedResponse, for request: CacheRequest, with headers: HTTPHeaders, requestTime: Date
    )
        -> CachedResponse
    {
        let updated = stored.freshened(with: headers, requestTime: requestTime, responseTime: now)
        if !request.forbidsStoring { store.store(updated, for: request.key) }
        return updated
    }

    /// Invalidates what is stored after `response` to an unsafe `request` (RFC 9111 §4.4): a success or redirect
    /// removes the request's URL and the `Location` and `Content-Location` URLs of the same origin, for every
    /// credentials (what one user changed, another must not read stale).
    package func invalidate(after response: Response, to request: CacheRequest) {
        guard request.isUnsafe, (200..<400).contains(response.statusCode) else { return }
        store.removeAll(of: request.urlKey)
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers[name], let target = URL(string: value, relativeTo: request.url),
                RedirectPolicy.isSameOrigin(request.url, target.absoluteURL)
            else { continue }
            store.removeAll(of: CacheRequest.key(for: target.absoluteURL))
        }
    }
}
