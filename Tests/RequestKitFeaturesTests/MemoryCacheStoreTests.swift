import Foundation
import Testing

@testable import RequestKitFeatures

@Suite("MemoryCacheStore: bounded by bytes, least recently used first out")
struct MemoryCacheStoreTests {
    typealias F = CacheFixtures

    static func entry(_ size: Int, vary: String? = nil) -> CachedResponse {
        var stored = F.stored(varying: vary.map { [.init(name: "accept", value: $0)] } ?? [])
        stored.body = Data(repeating: 1, count: size)
        return stored
    }

    @Test("Storing past the bound evicts the least recently used keys, and a use refreshes a key")
    func leastRecentlyUsed() {
        let size = Self.entry(1000).byteCount + 1
        let store = MemoryCacheStore(maxBytes: size * 3)
        for key in ["a", "b", "c"] { store.store(Self.entry(1000), for: key) }
        #expect(store.count == 3)
        #expect(store.variants(for: "a").count == 1)  // a is now the most recent
        store.store(Self.entry(1000), for: "d")
        #expect(store.variants(for: "b").isEmpty)
        #expect(store.variants(for: "a").count == 1)
        #expect(store.variants(for: "c").count == 1)
        #expect(store.variants(for: "d").count == 1)
        #expect(store.byteCount <= size * 3)
        store.remove("c")
        #expect(store.count == 2)
        #expect(store.byteCount == 2 * size)
    }

    @Test("A response larger than the bound is not stored, and replaces nothing it cannot hold")
    func tooLarge() {
        let store = MemoryCacheStore(maxBytes: 2000)
        store.store(Self.entry(10), for: "small")
        store.store(Self.entry(2000), for: "large")
        #expect(store.variants(for: "large").isEmpty)
        #expect(store.variants(for: "small").count == 1)
    }

    @Test("Variants of one key: a new one goes first; one with the same secondary key is replaced")
    func variants() {
        let store = MemoryCacheStore(maxBytes: 1 << 20)
        store.store(Self.entry(1, vary: "json"), for: "k")
        store.store(Self.entry(2, vary: "text"), for: "k")
        store.store(Self.entry(3, vary: "json"), for: "k")
        #expect(store.variants(for: "k").map(\.body.count) == [3, 2])
        store.removeAll()
        #expect(store.count == 0 && store.byteCount == 0)
    }

    @Test("Many keys through a small bound keep the count and bytes consistent")
    func churn() {
        let store = MemoryCacheStore(maxBytes: 50_000)
        for index in 0..<5_000 {
            store.store(Self.entry(index % 300), for: "k\(index % 700)")
            if index % 3 == 0 { _ = store.variants(for: "k\((index * 7) % 700)") }
        }
        #expect(store.byteCount <= 50_000)
        #expect(store.count > 0)
    }
}
