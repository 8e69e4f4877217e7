import Foundation

/// A streamed body gathered in memory for a ``MemoryCacheStore``, which keeps bodies in memory anyway: at most
/// `limit` bytes, all of them dropped when the body passes it.
///
/// ```swift
/// let sink = BufferedCacheBody(store: store, key: key, response: head, limit: 1 << 20)
/// ```
final class BufferedCacheBody: CacheBodySink {
    private let store: any CacheStore
    private let key: String
    private var response: CachedResponse
    private let limit: Int

    init(store: any CacheStore, key: String, response: CachedResponse, limit: Int) {
        self.store = store
        self.key = key
        self.response = response
        self.limit = limit
    }

    func write(_ chunk: Data) -> Bool {
        guard chunk.count <= limit - response.body.count else {
            response.body = Data()
            return false
        }
        response.body.append(chunk)
        return true
    }

    func commit() { store.store(response, for: key) }

    func discard() { response.body = Data() }
}
