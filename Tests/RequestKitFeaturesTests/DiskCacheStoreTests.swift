import Foundation
import Testing

@testable import RequestKitFeatures
@testable import RequestKitModel

@Suite("DiskCacheStore: files written whole, owner-only, corruption a miss, shared between stores")
struct DiskCacheStoreTests {
    typealias F = CacheFixtures

    /// A fresh directory under the temporary directory, removed by the caller.
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("rk-cache-\(UUID().uuidString)")
    }

    static func entry(_ body: String, fields: [(String, String)] = [("Cache-Control", "max-age=60")]) -> CachedResponse
    {
        var stored = F.stored(fields)
        stored.body = Data(body.utf8)
        return stored
    }

    @Test("A stored response reads back the same, and a second store on the directory sees it")
    func roundTrip() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        let entry = Self.entry("body", fields: [("Cache-Control", "max-age=60"), ("ETag", "\"1\""), ("X-Ü", "ü")])
        store.store(entry, for: "http://a/1")
        #expect(store.variants(for: "http://a/1") == [entry])
        let other = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        #expect(other.variants(for: "http://a/1") == [entry])
        #expect(other.variants(for: "http://a/2").isEmpty)
        other.remove("http://a/1")
        #expect(store.variants(for: "http://a/1").isEmpty)
    }

    @Test("Files and the directory are owner-only")
    func permissions() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        store.store(Self.entry("x"), for: "k")
        let file = try FileManager.default.attributesOfItem(atPath: store.path(for: "k"))
        let folder = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((file[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }

    @Test("A truncated or corrupt file is a miss and is removed", arguments: [0, 5, 12, 40, -1])
    func corruption(_ keep: Int) throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        store.store(Self.entry("a body of some length"), for: "k")
        let path = store.path(for: "k")
        let data = try #require(FileManager.default.contents(atPath: path))
        let damaged = keep >= 0 ? data.prefix(keep) : data + Data([1, 2, 3])
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(store.variants(for: "k").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("Random bytes in place of a file never crash and read as a miss")
    func randomBytes() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<200 {
            var bytes =
                Array(CacheEntryCoding.magic)
                + (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            if round % 2 == 0 { bytes.replaceSubrange(8..<min(12, bytes.count), with: [1, 0, 0, 0]) }
            try Data(bytes).write(to: URL(fileURLWithPath: store.path(for: "k")))
            #expect(store.variants(for: "k").isEmpty)
        }
    }

    @Test("Set-Cookie is not written, nor a response varying on Authorization")
    func sensitiveData() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        store.store(Self.entry("x", fields: [("Cache-Control", "max-age=60"), ("Set-Cookie", "secret=1")]), for: "k")
        let file = try #require(FileManager.default.contents(atPath: store.path(for: "k")))
        #expect(file.range(of: Data("secret".utf8)) == nil)
        #expect(store.variants(for: "k").first?.headers["Set-Cookie"] == nil)
        var varying = Self.entry("y")
        varying.varyingFields = [.init(name: "authorization", value: "Bearer token")]
        store.store(varying, for: "v")
        #expect(!FileManager.default.fileExists(atPath: store.path(for: "v")))
    }

    @Test("Past the bound, the least recently touched files go first")
    func bound() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = CacheEntryCoding.encode(key: "k0", variants: [Self.entry(String(repeating: "x", count: 1000))]).count
        let store = DiskCacheStore(directory: directory, maxBytes: size * 3 + 10)
        let old = Date(timeIntervalSinceNow: -1000)
        for index in 0..<3 {
            store.store(Self.entry(String(repeating: "x", count: 1000)), for: "k\(index)")
            try FileManager.default.setAttributes(
                [.modificationDate: old.addingTimeInterval(Double(index))], ofItemAtPath: store.path(for: "k\(index)"))
        }
        #expect(store.variants(for: "k0").count == 1)  // touched: now the most recent
        store.store(Self.entry(String(repeating: "x", count: 1000)), for: "k3")
        #expect(store.variants(for: "k1").isEmpty)
        #expect(store.variants(for: "k0").count == 1 && store.variants(for: "k2").count == 1)
        #expect(store.byteCount <= size * 3 + 10)
    }

    @Test("A hit touches a file last touched a minute or more ago, and leaves a more recent one alone")
    func touchInterval() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The store's time stands still, so the test holds however long the machine takes; whole seconds, which
        // every file system keeps exactly.
        let now = 1_700_000_000
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20, now: { now })
        func modified(_ key: String) throws -> Date {
            try #require(
                try FileManager.default.attributesOfItem(atPath: store.path(for: key))[.modificationDate] as? Date)
        }
        let recent = Date(timeIntervalSince1970: Double(now - DiskCacheStore.touchInterval + 1))
        let stale = Date(timeIntervalSince1970: Double(now - DiskCacheStore.touchInterval))
        for (key, date) in [("recent", recent), ("stale", stale)] {
            store.store(Self.entry("x"), for: key)
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: store.path(for: key))
        }
        #expect(store.variants(for: "recent").count == 1 && store.variants(for: "stale").count == 1)
        #expect(try modified("recent") == recent)
        #expect(try modified("stale") == Date(timeIntervalSince1970: Double(now)))
    }

    @Test("Concurrent writers of one key leave one whole file")
    func concurrentWriters() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stores = (0..<4).map { _ in DiskCacheStore(directory: directory, maxBytes: 1 << 24) }
        await withTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    for round in 0..<50 {
                        store.store(Self.entry(String(repeating: "\(index)", count: 10_000 + round)), for: "k")
                        _ = store.variants(for: "k")
                    }
                }
            }
        }
        let variants = stores[0].variants(for: "k")
        #expect(variants.count == 1)
        let body = try #require(variants.first?.body)
        #expect(Set(body).count == 1 && body.count >= 10_000)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers.count == 1)
    }
    @Test("A file with any one byte changed is a miss and is removed: the body, a field, the key, the CRC itself")
    func flippedByte() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        let entry = Self.entry(
            "a body whose bytes are checked", fields: [("Cache-Control", "max-age=60"), ("ETag", "\"7\"")])
        store.store(entry, for: "http://a/k")
        let path = store.path(for: "http://a/k")
        let original = try #require(FileManager.default.contents(atPath: path))
        let body = try #require(original.range(of: Data("bytes are".utf8))).lowerBound
        let field = try #require(original.range(of: Data("\"7\"".utf8))).lowerBound + 1
        let key = try #require(original.range(of: Data("http://a/k".utf8))).lowerBound + 7
        for offset in [body, field, key, original.count - 1] {
            var flipped = original
            flipped[offset] ^= 0x01
            try flipped.write(to: URL(fileURLWithPath: path))
            #expect(store.variants(for: "http://a/k").isEmpty, "byte \(offset)")
            #expect(!FileManager.default.fileExists(atPath: path), "byte \(offset)")
        }
        try original.write(to: URL(fileURLWithPath: path))
        #expect(store.variants(for: "http://a/k") == [entry])
    }

    @Test("A file with bytes added is a miss and is removed without being read: a terabyte of holes takes no memory")
    func appendedBytes() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // No bound to stop the read: the length the file holds must.
        let store = DiskCacheStore(directory: directory, maxBytes: .max)
        store.store(Self.entry("body"), for: "k")
        let path = store.path(for: "k")
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        // A sparse file: a terabyte of zeros that the file system does not store, but a whole read would.
        #expect(truncate(path, off_t(size) + (1 << 40)) == 0)
        #expect(store.variants(for: "k").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        // Within a bound, a file past it is not read either.
        let bounded = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        bounded.store(Self.entry("body"), for: "k")
        #expect(truncate(path, 1 << 21) == 0)
        #expect(bounded.variants(for: "k").isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("A body stored while it streams gets the CRC a whole write gives")
    func streamedChecksum() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        store.store(Self.entry("other variant", fields: [("Vary", "Accept")]), for: "k")
        var head = Self.entry("", fields: [("Cache-Control", "max-age=60"), ("Vary", "Accept")])
        head.varyingFields = [.init(name: "accept", value: "text/b")]
        let sink = try #require(store.bodySink(for: "k", response: head, limit: 1 << 20))
        for chunk in ["first ", "second ", "third"] { #expect(sink.write(Data(chunk.utf8))) }
        sink.commit()
        let written = try #require(FileManager.default.contents(atPath: store.path(for: "k")))
        let variants = store.variants(for: "k")
        #expect(variants.map { String(decoding: $0.body, as: UTF8.self) } == ["first second third", "other variant"])
        #expect(CacheEntryCoding.encode(key: "k", variants: variants) == written)
    }

}
