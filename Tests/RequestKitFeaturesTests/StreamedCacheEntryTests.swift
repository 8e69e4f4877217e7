import Foundation
import Testing

@testable import RequestKitFeatures
@testable import RequestKitModel

@Suite("Storing a body while it streams: the body's tap, and the sinks of the memory and disk stores")
struct StreamedCacheEntryTests {
    typealias F = CacheFixtures

    /// A tap that records what it hears, in order.
    final class RecordingTap: ResponseBodyTap, @unchecked Sendable {
        // Safe: every access to `events` holds `lock`.
        private let lock = NSLock()
        private var recorded: [String] = []
        var events: [String] { lock.withLock { recorded } }
        func received(_ chunk: Data) { lock.withLock { recorded.append(String(decoding: chunk, as: UTF8.self)) } }
        func ended() { lock.withLock { recorded.append("ended") } }
        func abandoned() { lock.withLock { recorded.append("abandoned") } }
    }

    @Test("The tap hears each chunk as the consumer reads it, then the end once")
    func tapReadToTheEnd() async throws {
        let (body, continuation) = ResponseBodyStream.makeStream(bufferLimit: 1 << 10)
        let tap = RecordingTap()
        body.buffer.setTap(tap)
        continuation.yield(Data("a".utf8))
        continuation.yield(Data("b".utf8))
        #expect(tap.events.isEmpty)
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        #expect(tap.events == ["a"])
        continuation.finish()
        #expect(try await iterator.next() == Data("b".utf8))
        #expect(try await iterator.next() == nil)
        #expect(try await iterator.next() == nil)
        #expect(tap.events == ["a", "b", "ended"])
    }

    @Test("A failed body abandons the tap once, when it fails, and the tap hears nothing more")
    func tapOnFailure() async throws {
        let (body, continuation) = ResponseBodyStream.makeStream(bufferLimit: 1 << 10)
        let tap = RecordingTap()
        body.buffer.setTap(tap)
        continuation.yield(Data("a".utf8))
        continuation.finish(throwing: RequestError.timedOut("test"))
        #expect(tap.events == ["abandoned"])
        var iterator = body.makeAsyncIterator()
        #expect(try await iterator.next() == Data("a".utf8))
        await #expect(throws: RequestError.self) { try await iterator.next() }
        #expect(tap.events == ["abandoned"])
    }

    @Test("A consumer that stops, and a deadline that passes, abandon the tap; a tap set after a failure at once")
    func tapAbandoned() async throws {
        let (stopped, stoppedContinuation) = ResponseBodyStream.makeStream(bufferLimit: 1 << 10)
        let first = RecordingTap()
        stopped.buffer.setTap(first)
        stoppedContinuation.yield(Data("a".utf8))
        stoppedContinuation.finish()
        stopped.buffer.terminate()
        stopped.buffer.terminate()
        #expect(first.events == ["abandoned"])

        let (expired, _) = ResponseBodyStream.makeStream(bufferLimit: 1 << 10)
        let second = RecordingTap()
        expired.buffer.setTap(second)
        expired.buffer.expire(RequestError.timedOut("deadline"))
        #expect(second.events == ["abandoned"])

        let (failed, failedContinuation) = ResponseBodyStream.makeStream(bufferLimit: 1 << 10)
        failedContinuation.finish(throwing: RequestError.timedOut("test"))
        let third = RecordingTap()
        failed.buffer.setTap(third)
        #expect(third.events == ["abandoned"])
    }

    @Test("The memory store's sink stores the body at its end, and nothing past its limit or when discarded")
    func memorySink() throws {
        let store = MemoryCacheStore(maxBytes: 1 << 20)
        let head = Self.head()
        let whole = try #require(store.bodySink(for: "k1", response: head, limit: 8))
        #expect(whole.write(Data("1234".utf8)) && whole.write(Data("5678".utf8)))
        #expect(store.variants(for: "k1").isEmpty)
        whole.commit()
        #expect(store.variants(for: "k1").map(\.body) == [Data("12345678".utf8)])

        let long = try #require(store.bodySink(for: "k2", response: head, limit: 8))
        #expect(long.write(Data("1234".utf8)))
        #expect(!long.write(Data("56789".utf8)))
        #expect(store.variants(for: "k2").isEmpty)

        let discarded = try #require(store.bodySink(for: "k3", response: head, limit: 8))
        #expect(discarded.write(Data("1".utf8)))
        discarded.discard()
        #expect(store.variants(for: "k3").isEmpty)
        #expect(MemoryCacheStore(maxBytes: 10).bodySink(for: "k", response: head, limit: 8) == nil)
    }

    @Test("The disk store's sink writes each chunk to a hidden temporary file as it comes, renamed at the end")
    func diskSinkWritesAsItStreams() throws {
        let directory = DiskCacheStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        let sink = try #require(store.bodySink(for: "http://a/1", response: Self.head(), limit: 1 << 16))
        let first = try Self.temporaryFileSize(in: directory)
        #expect(sink.write(Data(count: 1000)))
        #expect(try Self.temporaryFileSize(in: directory) == first + 1000)
        #expect(sink.write(Data(count: 24)))
        #expect(try Self.temporaryFileSize(in: directory) == first + 1024)
        #expect(store.variants(for: "http://a/1").isEmpty)
        sink.commit()
        #expect(try Self.hiddenFiles(in: directory).isEmpty)
        let stored = store.variants(for: "http://a/1")
        #expect(stored.count == 1 && stored.first?.body == Data(count: 1024))
        #expect(stored.first?.headers["Set-Cookie"] == nil && stored.first?.headers["ETag"] == "\"1\"")
        // The head, the body and the CRC-32 that ends the file.
        #expect(store.byteCount == first + 1024 + CacheEntryCoding.checksumLength)
    }

    @Test("The disk store's sink keeps the key's other variants and replaces its own")
    func diskSinkVariants() throws {
        let directory = DiskCacheStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        let a = Self.head(accept: "a", body: "old a")
        let b = Self.head(accept: "b", body: "b")
        store.store(a, for: "k")
        store.store(b, for: "k")
        let sink = try #require(store.bodySink(for: "k", response: Self.head(accept: "a"), limit: 100))
        #expect(sink.write(Data("new a".utf8)))
        sink.commit()
        let stored = store.variants(for: "k")
        #expect(stored.map { String(decoding: $0.body, as: UTF8.self) } == ["new a", "b"])
        #expect(stored.map { $0.varyingFields.first?.value } == ["a", "b"])
    }

    @Test("The disk store's sink past its limit, discarded or dropped removes its file and stores nothing")
    func diskSinkGivesUp() throws {
        let directory = DiskCacheStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        let long = try #require(store.bodySink(for: "k", response: Self.head(), limit: 10))
        #expect(long.write(Data(count: 6)))
        #expect(!long.write(Data(count: 5)))
        #expect(!long.write(Data(count: 1)))
        #expect(try Self.hiddenFiles(in: directory).isEmpty)
        long.commit()
        let discarded = try #require(store.bodySink(for: "k", response: Self.head(), limit: 10))
        #expect(discarded.write(Data(count: 6)))
        discarded.discard()
        do {
            let dropped = try #require(store.bodySink(for: "k", response: Self.head(), limit: 10))
            #expect(dropped.write(Data(count: 6)))
            #expect(try Self.hiddenFiles(in: directory).count == 1)
        }
        #expect(try Self.hiddenFiles(in: directory).isEmpty)
        #expect(store.variants(for: "k").isEmpty && store.byteCount == 0)
        let bounded = DiskCacheStore(directory: directory, maxBytes: 300)
        let overBound = try #require(bounded.bodySink(for: "k", response: Self.head(), limit: 1000))
        #expect(!overBound.write(Data(count: 400)))
        let varyingOnCookie = Self.head(varying: [.init(name: "cookie", value: "id=1")])
        #expect(store.bodySink(for: "k", response: varyingOnCookie, limit: 10) == nil)
    }

    @Test("ResponseCache: a streamed entry only for a storable response within maxStreamedBodyBytes")
    func streamedEntries() {
        let cache = ResponseCache(.memory(), maxStreamedBodyBytes: 100)
        let request = F.request()
        func response(_ fields: [(String, String)]) -> Response {
            Response(status: .ok, headers: HTTPHeaders(fields.map { HTTPHeader(name: $0.0, value: $0.1) }), url: F.url)
        }
        let fresh = [("Cache-Control", "max-age=60")]
        #expect(cache.streamedEntry(for: response(fresh), to: request, requestTime: cache.now) != nil)
        #expect(
            cache.streamedEntry(for: response(fresh + [("Content-Length", "100")]), to: request, requestTime: cache.now)
                != nil)
        #expect(
            cache.streamedEntry(for: response(fresh + [("Content-Length", "101")]), to: request, requestTime: cache.now)
                == nil)
        #expect(
            cache.streamedEntry(for: response([("Cache-Control", "no-store")]), to: request, requestTime: cache.now)
                == nil)
        let none = ResponseCache(.memory(), maxStreamedBodyBytes: 0)
        #expect(none.streamedEntry(for: response(fresh), to: request, requestTime: none.now) == nil)
    }

    /// A stored response's head, its body still to come (`body` for a whole one), varying on `Accept` when given.
    static func head(
        accept: String? = nil, body: String = "", varying: [CachedResponse.VaryingField] = []
    ) -> CachedResponse {
        var head = F.stored(
            [("Cache-Control", "max-age=60"), ("ETag", "\"1\""), ("Set-Cookie", "id=1")], varying: varying)
        if let accept {
            head.headers.add("Vary", "Accept")
            head.varyingFields = [.init(name: "accept", value: accept)]
        }
        head.body = Data(body.utf8)
        return head
    }

    static func hiddenFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    }

    /// The size of the one temporary file in `directory`.
    static func temporaryFileSize(in directory: URL) throws -> Int {
        let names = try hiddenFiles(in: directory)
        try #require(names.count == 1)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: directory.appendingPathComponent(names[0]).path)
        return try #require(attributes[.size] as? Int)
    }
}
