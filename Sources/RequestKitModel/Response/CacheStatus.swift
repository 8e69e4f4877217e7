/// Where a response came from when a ``ResponseCache`` was in the way: the network, the cache as it was stored,
/// or the cache after the server confirmed it with a `304 Not Modified`.
///
/// Without a cache every response is ``network``.
///
/// ```swift
/// let response = try await Request { Url(url); Cache(cache) }.send()
/// if response.cacheStatus == .hit { print("served from the cache") }
/// ```
public struct CacheStatus: Sendable, Hashable, CustomStringConvertible {
    /// The name: `network`, `hit`, `stale`, `revalidated` or `unsatisfied`.
    public let name: String

    private init(_ name: String) { self.name = name }

    /// From the network: no cache, nothing stored, or what was stored could not be used.
    ///
    /// ```swift
    /// #expect(first.cacheStatus == .network)
    /// ```
    public static let network = CacheStatus("network")
    /// A fresh stored response, served without contacting the server.
    ///
    /// ```swift
    /// #expect(second.cacheStatus == .hit)
    /// ```
    public static let hit = CacheStatus("hit")
    /// A stale stored response, served without waiting for the server: allowed by the request's `max-stale`, by
    /// `stale-while-revalidate` (a refresh runs in the background) or by `stale-if-error` (the server failed).
    ///
    /// ```swift
    /// if response.cacheStatus == .stale { print("may be out of date") }
    /// ```
    public static let stale = CacheStatus("stale")
    /// A stored response the server confirmed with `304 Not Modified`: its headers updated, its body from the cache.
    ///
    /// ```swift
    /// #expect(response.cacheStatus == .revalidated)
    /// ```
    public static let revalidated = CacheStatus("revalidated")
    /// Nothing usable was stored for a request that forbids the network (`only-if-cached`,
    /// ``CachePolicy/Rule/returnCacheDontLoad``): a `504 Gateway Timeout` made by the cache.
    ///
    /// ```swift
    /// #expect(response.cacheStatus == .unsatisfied && response.statusCode == 504)
    /// ```
    public static let unsatisfied = CacheStatus("unsatisfied")

    /// Whether the body came from the cache (``hit``, ``stale`` or ``revalidated``).
    ///
    /// ```swift
    /// if response.cacheStatus.isFromCache { counts.hits += 1 }
    /// ```
    public var isFromCache: Bool { self == .hit || self == .stale || self == .revalidated }

    public var description: String { name }
}
