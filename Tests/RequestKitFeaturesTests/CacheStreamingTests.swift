import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite(
    "ResponseCache and streamed bodies: stored as the caller reads them, nothing from a body not read whole", .wallClock
)
struct CacheStreamingTests {
    /// Where a test's cache keeps responses.
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case memory, disk
        var testDescription: String { rawValue }
    }

    /// A cache of `store`'s kind (a disk store in a directory of its own) in front of a loopback origin, both on a
    /// test clock: a stored response stays fresh however long the machine takes, until the test moves the clock.
    struct Setup {
        let origin: CacheOrigin
        let clock = TestClock()
        let cache: ResponseCache
        let directory: URL

        init(_ store: Store, maxStreamedBodyBytes: Int = 1 << 20, wire: WireTransport? = nil) throws {
            directory = DiskCacheStoreTests.directory()
            let storage: ResponseCache.Storage =
                store == .memory ? .memory(maxBytes: 1 << 20) : .disk(at: directory, maxBytes: 1 << 20)
            let cache = ResponseCache(storage, maxStreamedBodyBytes: maxStreamedBodyBytes, clock: RequestClock(clock))
            origin = try CacheOrigin(now: { cache.now }, wire: wire)
            self.cache = cache
        }

        func request(_ path: String, transport: any Transport = NativeTransport.shared) -> Request {
            Request {
                Url(origin.url(path))
                Using(transport)
                Cache(cache)
            }
        }

        /// The names of the files in the disk store's directory, hidden ones included.
        var files: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        }

        func removeDirectory() { try? FileManager.default.removeItem(at: directory) }
    }

    static let chunks = ["first ", "second ", "third"].map { Data($0.utf8) }

    @Test(
        "stream() read to its end stores the body: the next request is a hit with the same bytes",
        arguments: Store.allCases, WireTransport.all)
    func streamStores(_ store: Store, _ wire: WireTransport) async throws {
        let setup = try Setup(store, wire: wire)
        defer { setup.removeDirectory() }
        setup.origin.route("/r") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .chunked(Self.chunks))
        }
        let streaming = try await setup.request("/r", transport: wire.transport).stream()
        #expect(streaming.head.cacheStatus == .network)
        #expect(try await streaming.collect() == Data("first second third".utf8))
        await setup.clock.advance(by: .seconds(59))
        let again = try await setup.request("/r", transport: wire.transport).send()
        #expect(again.cacheStatus == .hit)
        #expect(String(decoding: again.body, as: UTF8.self) == "first second third")
        #expect(setup.origin.count("/r") == 1)
        if store == .disk { #expect(setup.files.count == 1 && setup.files[0].hasSuffix(".rkcache")) }
    }

    @Test("download(to:) stores the body it writes to the file", arguments: Store.allCases)
    func downloadStores(_ store: Store) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        setup.origin.route("/file") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(body))
        }
        let destination = DiskCacheStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: destination) }
        let head = try await setup.request("/file").download(to: destination)
        #expect(head.cacheStatus == .network)
        #expect(try Data(contentsOf: destination) == body)
        let again = try await setup.request("/file").send()
        #expect(again.cacheStatus == .hit && again.body == body)
        #expect(setup.origin.count("/file") == 1)
    }

    @Test("A body cut short by the server stores nothing and leaves no file behind", arguments: Store.allCases)
    func failedStream(_ store: Store) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        setup.origin.route("/short") { _, _ in
            TestResponse(
                headers: [("Cache-Control", "max-age=60"), ("Content-Length", "20")],
                body: .data(Data("ten bytes.".utf8)))
        }
        let streaming = try await setup.request("/short").stream()
        await #expect(throws: RequestError.self) { try await streaming.collect() }
        let again = try await setup.request("/short").stream()
        #expect(again.head.cacheStatus == .network)
        again.body.buffer.terminate()
        #expect(setup.origin.count("/short") == 2)
        if store == .disk { #expect(setup.files.isEmpty) }
    }

    @Test("A stream its caller stops reading stores nothing and leaves no file behind", arguments: Store.allCases)
    func abandonedStream(_ store: Store) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        setup.origin.route("/r") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .chunked(Self.chunks))
        }
        try await Self.readFirstChunk(of: setup.request("/r"))
        if store == .disk { #expect(setup.files.isEmpty) }
        let again = try await setup.request("/r").send()
        #expect(again.cacheStatus == .network)
        #expect(setup.origin.count("/r") == 2)
    }

    /// Reads the first chunk of the request's body (the transport may have joined the server's chunks) and drops
    /// the stream before its end.
    private static func readFirstChunk(of request: Request) async throws {
        let streaming = try await request.stream()
        for try await chunk in streaming.body {
            #expect(Data("first second third".utf8).starts(with: chunk) && !chunk.isEmpty)
            break
        }
    }

    @Test("A body past maxStreamedBodyBytes reaches its caller whole and is not stored", arguments: Store.allCases)
    func pastTheLimit(_ store: Store) async throws {
        let setup = try Setup(store, maxStreamedBodyBytes: 10)
        defer { setup.removeDirectory() }
        setup.origin.route("/chunked") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .chunked(Self.chunks))
        }
        setup.origin.route("/length") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data("eleven byte".utf8)))
        }
        setup.origin.route("/small") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data("ten bytes.".utf8)))
        }
        for path in ["/chunked", "/length", "/small"] {
            let streaming = try await setup.request(path).stream()
            _ = try await streaming.collect()
        }
        #expect(try await setup.request("/chunked").stream().collect() == Data("first second third".utf8))
        #expect(try await setup.request("/length").send().cacheStatus == .network)
        #expect(try await setup.request("/small").send().cacheStatus == .hit)
        let counts = ["/chunked", "/length", "/small"].map { setup.origin.count($0) }
        #expect(counts == [2, 2, 1])
    }

    @Test("A streamed variant joins the variants stored for its URL", arguments: Store.allCases)
    func streamedVariant(_ store: Store) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        setup.origin.route("/v") { count, request in
            TestResponse(
                headers: [("Cache-Control", "max-age=60"), ("Vary", "Accept")],
                body: .chunked([Data("\(request.header("Accept") ?? "-") \(count)".utf8)]))
        }
        func request(_ accept: String) -> Request {
            Request {
                Url(setup.origin.url("/v")); Header.Accept(MediaType(accept)); Cache(setup.cache)
            }
        }
        _ = try await request("text/a").send()
        _ = try await request("text/b").stream().collect()
        _ = try await request("text/c").stream().collect()
        // Fresh until 60 s have passed on the cache's clock, however long the requests above took.
        await setup.clock.advance(by: .seconds(59))
        let answers = try await ["text/a", "text/b", "text/c"].asyncMap { try await request($0).send() }
        #expect(answers.map(\.cacheStatus) == [.hit, .hit, .hit])
        #expect(answers.map { String(decoding: $0.body, as: UTF8.self) } == ["text/a 1", "text/b 2", "text/c 3"])
    }

    @Test("A response that may not be stored streams as before and leaves nothing", arguments: Store.allCases)
    func notStorable(_ store: Store) async throws {
        let setup = try Setup(store)
        defer { setup.removeDirectory() }
        setup.origin.route("/private") { _, _ in
            TestResponse(headers: [("Cache-Control", "no-store")], body: .chunked(Self.chunks))
        }
        #expect(try await setup.request("/private").stream().collect() == Data("first second third".utf8))
        #expect(try await setup.request("/private").send().cacheStatus == .network)
        if store == .disk { #expect(setup.files.isEmpty) }
    }
}

extension Array {
    /// The elements mapped one after another by an async transform.
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
