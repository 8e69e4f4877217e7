/// Where a ``ResponseCache`` keeps responses: by key (``CacheRequest/key``: the URL, and a digest of the request's
/// credentials when it has any), each key holding its variants (responses that differ by the request fields their
/// `Vary` names), newest first. Implementations bound their size and are safe to call from any task.
protocol CacheStore: Sendable {
    /// The variants stored for `key`, newest first; marks the key as used.
    func variants(for key: String) -> [CachedResponse]
    /// Stores `response` for `key`, replacing the variant with the same secondary key.
    func store(_ response: CachedResponse, for key: String)
    /// Removes everything stored for `key`.
    func remove(_ key: String)
    /// Removes everything stored for the URL whose key is `urlKey`, whatever the credentials it was stored for.
    func removeAll(of urlKey: String)
    /// Removes everything.
    func removeAll()
    /// The bytes held, as counted against the bound.
    var byteCount: Int { get }
    /// Where the body of `response` (stored for `key` once its body has ended) goes while it streams, taking at
    /// most `limit` body bytes; nil when it cannot be stored.
    func bodySink(for key: String, response: CachedResponse, limit: Int) -> (any CacheBodySink)?
}

extension CacheStore {
    /// `variants` with `response` in place of the variant with the same secondary key, newest first.
    static func replacing(_ response: CachedResponse, in variants: [CachedResponse]) -> [CachedResponse] {
        [response] + variants.filter { $0.varyingFields != response.varyingFields }
    }
}
