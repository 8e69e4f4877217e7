import Foundation

/// A cache store in memory, bounded by bytes: when a new response would pass the bound, the least recently used
/// keys go first. Keys are kept in a doubly linked list threaded through the dictionary, so a use and an eviction
/// each cost a few dictionary operations, whatever the number of entries.
final class MemoryCacheStore: CacheStore, @unchecked Sendable {
    // Safe: every access to the mutable state below holds `lock`.
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    /// The keys with credentials stored for each URL's key, so that its responses go together.
    private var credentialKeys: [Substring: Set<String>] = [:]
    private var newest: String?
    private var oldest: String?
    private var bytes = 0
    let maxBytes: Int

    private struct Entry {
        var variants: [CachedResponse]
        var byteCount: Int
        var older: String?
        var newer: String?
    }

    init(maxBytes: Int) { self.maxBytes = max(0, maxBytes) }

    var byteCount: Int { lock.withLock { bytes } }

    /// The number of keys held.
    var count: Int { lock.withLock { entries.count } }

    func variants(for key: String) -> [CachedResponse] {
        lock.withLock {
            guard let entry = entries[key] else { return [] }
            moveToFront(key)
            return entry.variants
        }
    }

    func store(_ response: CachedResponse, for key: String) {
        lock.withLock {
            let variants = Self.replacing(response, in: entries[key]?.variants ?? [])
            let size = variants.reduce(key.utf8.count) { $0 + $1.byteCount }
            unlink(key)
            guard size <= maxBytes else { return }
            while bytes + size > maxBytes, let victim = oldest { unlink(victim) }
            entries[key] = Entry(variants: variants, byteCount: size, older: newest, newer: nil)
            let urlKey = CacheRequest.urlKey(of: key)
            if urlKey.endIndex != key.endIndex { credentialKeys[urlKey, default: []].insert(key) }
            if let newest { entries[newest]?.newer = key }
            newest = key
            if oldest == nil { oldest = key }
            bytes += size
        }
    }

    func remove(_ key: String) {
        lock.withLock { unlink(key) }
    }

    func removeAll(of urlKey: String) {
        lock.withLock {
            unlink(urlKey)
            for key in credentialKeys[urlKey[...]] ?? [] { unlink(key) }
        }
    }

    /// Gathered in memory, where the body goes anyway, up to `limit` or the store's bound, whichever is smaller.
    func bodySink(for key: String, response: CachedResponse, limit: Int) -> (any CacheBodySink)? {
        let limit = min(limit, maxBytes - response.byteCount - key.utf8.count)
        guard limit >= 0 else { return nil }
        return BufferedCacheBody(store: self, key: key, response: response, limit: limit)
    }

    func removeAll() {
        lock.withLock {
            entries = [:]
            credentialKeys = [:]
            newest = nil
            oldest = nil
            bytes = 0
        }
    }

    /// Removes `key` from the list and the dictionary. Called with the lock held.
    private func unlink(_ key: String) {
        guard let entry = entries.removeValue(forKey: key) else { return }
        let urlKey = CacheRequest.urlKey(of: key)
        if urlKey.endIndex != key.endIndex {
            credentialKeys[urlKey]?.remove(key)
            if credentialKeys[urlKey]?.isEmpty == true { credentialKeys[urlKey] = nil }
        }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
        if let newer = entry.newer { entries[newer]?.older = entry.older } else { newest = entry.older }
        bytes -= entry.byteCount
    }

    /// Makes `key` the most recently used. Called with the lock held.
    private func moveToFront(_ key: String) {
        guard newest != key, var entry = entries[key] else { return }
        if let older = entry.older { entries[older]?.newer = entry.newer } else { oldest = entry.newer }
        if let newer = entry.newer { entries[newer]?.older = entry.older }
        entry.older = newest
        entry.newer = nil
        if let newest { entries[newest]?.newer = key }
        entries[key] = entry
        newest = key
    }
}
