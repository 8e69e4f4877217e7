import RequestKitModel

/// Sends this request through a ``ResponseCache``: a fresh stored response answers it without the network, a stale
/// one is revalidated, and the response is stored when HTTP allows it.
///
/// ```swift
/// let cache = ResponseCache(.memory())
/// let todos = try await Request {
///     Url("http://127.0.0.1:8080/todos")
///     Cache(cache)
/// }.send()
/// ```
public struct Cache: RequestComponent {
    /// The cache.
    public let cache: ResponseCache

    /// Uses `cache` for this request, in place of the client's.
    ///
    /// ```swift
    /// Cache(cache)
    /// ```
    public init(_ cache: ResponseCache) { self.cache = cache }

    public func apply(to parts: inout RequestParts) {
        parts[option: ResponseCacheKey.self] = cache
    }
}

package enum ResponseCacheKey: RequestOptionKey {
    package static let defaultValue: ResponseCache? = nil
}
