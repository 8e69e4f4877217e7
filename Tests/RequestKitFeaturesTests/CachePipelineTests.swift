import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitFeatures

@Suite(
    "ResponseCache in the pipeline: hits, validation, invalidation and policies on the wire", .timeLimit(.minutes(5)),
    .wallClock)
struct CachePipelineTests {
    /// A cache on a test clock, and a request through it.
    struct Setup {
        let origin: CacheOrigin
        let clock = TestClock()
        let cache: ResponseCache

        init(maxBytes: Int = 1 << 20, wire: WireTransport? = nil) throws {
            let cache = ResponseCache(.memory(maxBytes: maxBytes), clock: RequestClock(clock))
            origin = try CacheOrigin(now: { cache.now }, wire: wire)
            self.cache = cache
        }

        func send(
            _ path: String, transport: any Transport = NativeTransport.shared,
            @RequestBuilder _ more: () -> any RequestComponent
        ) async throws -> Response {
            try await Request {
                Url(origin.url(path))
                Using(transport)
                Cache(cache)
                more()
            }.send()
        }

        func send(_ path: String, transport: any Transport = NativeTransport.shared) async throws -> Response {
            try await send(path, transport: transport) {}
        }

        func text(_ response: Response) -> String { String(decoding: response.body, as: UTF8.self) }
    }

    @Test("A fresh response is served from the cache without a request", arguments: WireTransport.all)
    func freshHit(_ wire: WireTransport) async throws {
        let setup = try Setup(wire: wire)
        setup.origin.route("/r", [("Cache-Control", "max-age=60")])
        let first = try await setup.send("/r", transport: wire.transport)
        await setup.clock.advance(by: .seconds(59))
        let second = try await setup.send("/r", transport: wire.transport)
        #expect(first.cacheStatus == .network && setup.text(first) == "1")
        #expect(second.cacheStatus == .hit && setup.text(second) == "1")
        #expect(second.headers["Cache-Control"] == "max-age=60")
        #expect(first.headers["Age"] == nil && second.headers["Age"] == "59")
        #expect(second.url == setup.origin.url("/r"))
        #expect(setup.origin.count("/r") == 1)
    }

    @Test("On the system's clock, a response dated 100 s ago is answered with an Age of 100 s")
    func systemClockAge() async throws {
        let cache = ResponseCache(.memory())
        let origin = try CacheOrigin(now: { Date().addingTimeInterval(-100) })
        origin.route("/r", [("Cache-Control", "max-age=3600")])
        let request = Request {
            Url(origin.url("/r"))
            Cache(cache)
        }
        let start = Date()
        let first = try await request.send()
        let second = try await request.send()
        let elapsed = Date().timeIntervalSince(start)
        #expect(first.cacheStatus == .network && second.cacheStatus == .hit)
        // 100 s old when it arrived (its `Date` in whole seconds), older by the time it spent stored since.
        let age = try #require(second.headers["Age"].flatMap { Int($0) })
        #expect(age >= 100 && age <= 101 + Int(elapsed.rounded(.up)), "Age \(age) after \(elapsed) s")
        #expect(origin.count("/r") == 1)
    }

    @Test("A stale response is validated with If-None-Match; a 304 updates its headers and keeps its body")
    func revalidation() async throws {
        let setup = try Setup()
        setup.origin.route("/r") { count, request in
            if count > 1, request.header("If-None-Match") == "\"v1\"" {
                return TestResponse(status: 304, headers: [("ETag", "\"v1\""), ("X-Version", "\(count)")])
            }
            return TestResponse(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\""), ("X-Version", "1")])
        }
        _ = try await setup.send("/r")
        await setup.clock.advance(by: .seconds(61))
        let validated = try await setup.send("/r")
        #expect(validated.cacheStatus == .revalidated)
        #expect(validated.statusCode == 200 && setup.text(validated) == "1")
        #expect(validated.headers["X-Version"] == "2")
        let afterwards = try await setup.send("/r")
        #expect(afterwards.cacheStatus == .hit && afterwards.headers["X-Version"] == "2")
        #expect(setup.origin.server.requests.map { $0.header("If-None-Match") } == [nil, "\"v1\""])
    }

    @Test("A stale response with Last-Modified is validated with If-Modified-Since; a 200 replaces it")
    func lastModified() async throws {
        let setup = try Setup()
        let modified = "Tue, 01 Jan 2030 00:00:00 GMT"
        setup.origin.route("/r", [("Cache-Control", "max-age=10"), ("Last-Modified", modified)])
        _ = try await setup.send("/r")
        await setup.clock.advance(by: .seconds(11))
        let replaced = try await setup.send("/r")
        #expect(replaced.cacheStatus == .network && setup.text(replaced) == "2")
        #expect(setup.origin.server.requests.last?.header("If-Modified-Since") == modified)
        #expect(try await setup.send("/r").cacheStatus == .hit)
    }

    @Test("Vary: each Accept gets its own stored variant")
    func vary() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=60"), ("Vary", "Accept")])
        let json = try await setup.send("/r") { Header.Accept(.json) }
        let text = try await setup.send("/r") { Header.Any(key: "Accept", value: "text/plain") }
        let jsonAgain = try await setup.send("/r") { Header.Accept(.json) }
        let textAgain = try await setup.send("/r") { Header.Any(key: "Accept", value: "text/plain") }
        #expect([json, text, jsonAgain, textAgain].map(setup.text) == ["1", "2", "1", "2"])
        #expect([jsonAgain, textAgain].map(\.cacheStatus) == [.hit, .hit])
    }

    @Test("A successful POST invalidates the URL and its same-origin Location")
    func invalidation() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=60")])
        setup.origin.route("/other", [("Cache-Control", "max-age=60")])
        setup.origin.server.route("/r", method: "POST") { _ in
            TestResponse(status: 201, headers: [("Location", "/other")])
        }
        _ = try await setup.send("/r")
        _ = try await setup.send("/other")
        _ = try await setup.send("/r") { Method(.post) }
        #expect(try await setup.send("/r").cacheStatus == .network)
        #expect(try await setup.send("/other").cacheStatus == .network)
        #expect(setup.origin.count("/r") == 2 && setup.origin.count("/other") == 2)
    }

    @Test("only-if-cached with nothing stored is a 504 from the cache, which validation turns into an error")
    func onlyIfCached() async throws {
        let setup = try Setup()
        let response = try await setup.send("/missing") { Header.Any(key: "Cache-Control", value: "only-if-cached") }
        #expect(response.statusCode == 504 && response.cacheStatus == .unsatisfied)
        await #expect(throws: RequestError.self) {
            try await Request {
                Url(setup.origin.url("/missing"))
                Cache(setup.cache)
                CachePolicy(.returnCacheDontLoad)
            }.data()
        }
        #expect(setup.origin.server.requests.isEmpty)
    }

    @Test("Policy rules: reloadIgnoringCache goes to the network and stores; returnCacheElseLoad serves stale")
    func policies() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=60")])
        _ = try await setup.send("/r")
        let reloaded = try await setup.send("/r") { CachePolicy(.reloadIgnoringCache) }
        #expect(reloaded.cacheStatus == .network && setup.text(reloaded) == "2")
        await setup.clock.advance(by: .seconds(600))
        let stale = try await setup.send("/r") { CachePolicy(.returnCacheElseLoad) }
        #expect(stale.cacheStatus == .stale && setup.text(stale) == "2")
        let offline = try await setup.send("/r") { CachePolicy(.returnCacheDontLoad) }
        #expect(offline.cacheStatus == .stale && setup.text(offline) == "2")
        #expect(setup.origin.count("/r") == 2)
    }

    @Test("Header.CacheControl on a request is honoured: no-cache validates, max-stale accepts stale")
    func requestHeader() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=60")])
        _ = try await setup.send("/r")
        let validated = try await setup.send("/r") { Header.CacheControl(.noCache) }
        #expect(validated.cacheStatus == .network && setup.text(validated) == "2")
        await setup.clock.advance(by: .seconds(90))
        let stale = try await setup.send("/r") { Header.Any(key: "Cache-Control", value: "max-stale=60") }
        #expect(stale.cacheStatus == .stale && setup.text(stale) == "2")
    }

    @Test("stale-while-revalidate serves the stale response at once and refreshes it once in the background")
    func staleWhileRevalidate() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=10, stale-while-revalidate=60")])
        _ = try await setup.send("/r")
        await setup.clock.advance(by: .seconds(20))
        let stale = try await setup.send("/r")
        let staleAgain = try await setup.send("/r")
        #expect(stale.cacheStatus == .stale && setup.text(stale) == "1")
        // From the cache either way: still the stale copy, or the refreshed one if the refresh was quicker.
        #expect(staleAgain.cacheStatus.isFromCache && ["1", "2"].contains(setup.text(staleAgain)))
        await setup.cache.refreshes.waitForAll()
        let refreshed = try await setup.send("/r")
        #expect(refreshed.cacheStatus == .hit && setup.text(refreshed) == "2")
        #expect(setup.origin.count("/r") == 2)
    }

    @Test("stale-if-error serves the stale response when the server answers 503 or cannot be reached")
    func staleIfError() async throws {
        let setup = try Setup()
        setup.origin.route("/r") { count, _ in
            count == 1 ? TestResponse(headers: [("Cache-Control", "max-age=10, stale-if-error=60")]) : .status(503)
        }
        _ = try await setup.send("/r")
        await setup.clock.advance(by: .seconds(20))
        let stale = try await setup.send("/r")
        #expect(stale.cacheStatus == .stale && stale.statusCode == 200 && setup.text(stale) == "1")
        await setup.clock.advance(by: .seconds(60))
        let failed = try await setup.send("/r")
        #expect(failed.cacheStatus == .network && failed.statusCode == 503)
    }

    @Test("A 304 revalidation keeps its trip to the network in the answer's metrics; a fresh hit has none")
    func revalidationMetrics() async throws {
        let setup = try Setup()
        setup.origin.route("/r") { count, _ in
            count == 1
                ? TestResponse(headers: [("Cache-Control", "max-age=60"), ("ETag", "\"v1\"")])
                : TestResponse(status: 304, headers: [("ETag", "\"v1\"")])
        }
        let first = try await setup.send("/r")
        let hit = try await setup.send("/r")
        await setup.clock.advance(by: .seconds(61))
        let validated = try await setup.send("/r")
        #expect(first.cacheStatus == .network && first.metrics.attempts.map(\.status) == [HTTPStatus(code: 200)])
        #expect(hit.cacheStatus == .hit && hit.metrics.attempts.isEmpty)
        #expect(validated.cacheStatus == .revalidated && validated.statusCode == 200 && setup.text(validated) == "1")
        let attempt = try #require(validated.metrics.attempts.first)
        #expect(validated.metrics.attempts.count == 1)
        #expect(attempt.status == HTTPStatus(code: 304) && attempt.url == setup.origin.url("/r"))
        #expect(attempt.bytesReceived.map { $0 > 0 } == true && attempt.end != nil)
        #expect(setup.origin.count("/r") == 2)
    }

    @Test("A stale answer after a 503 (stale-if-error) keeps the failed validation's attempt in its metrics")
    func staleIfErrorMetrics() async throws {
        let setup = try Setup()
        setup.origin.route("/r") { count, _ in
            count == 1 ? TestResponse(headers: [("Cache-Control", "max-age=10, stale-if-error=60")]) : .status(503)
        }
        _ = try await setup.send("/r")
        await setup.clock.advance(by: .seconds(20))
        let stale = try await setup.send("/r")
        #expect(stale.cacheStatus == .stale && stale.statusCode == 200)
        #expect(stale.metrics.attempts.map(\.status) == [HTTPStatus(code: 503)])
    }

    @Test("Redirects are stored as responses: both hops answer from the cache")
    func redirects() async throws {
        let setup = try Setup()
        setup.origin.route("/old") { _, _ in
            TestResponse(status: 301, headers: [("Location", "/new"), ("Cache-Control", "max-age=60")])
        }
        setup.origin.route("/new", [("Cache-Control", "max-age=60")])
        let events = CacheEvents()
        let first = try await setup.send("/old") { Monitor(events) }
        let second = try await setup.send("/old") { Monitor(events) }
        #expect(first.url == setup.origin.url("/new") && second.url == setup.origin.url("/new"))
        #expect(second.cacheStatus == .hit && setup.text(second) == "1")
        #expect(setup.origin.count("/old") == 1 && setup.origin.count("/new") == 1)
        #expect(events.all == ["network /old", "network /new", "hit /old", "hit /new"])
    }

    @Test("A response to a request with Authorization is not stored unless it allows it")
    func authorization() async throws {
        let setup = try Setup()
        setup.origin.route("/private", [("Cache-Control", "max-age=60")])
        setup.origin.route("/public", [("Cache-Control", "public, max-age=60")])
        for path in ["/private", "/public"] {
            for _ in 0..<2 { _ = try await setup.send(path) { Header.Authorization(.bearer("t")) } }
        }
        #expect(setup.origin.count("/private") == 2 && setup.origin.count("/public") == 1)
    }

    @Test("Set-Cookie is stored and handed back, but a cookie jar takes cookies only from the network")
    func setCookie() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=60"), ("Set-Cookie", "a=1")])
        let jar = CookieJar()
        let first = try await setup.send("/r") { UseCookies(jar) }
        #expect(jar.allCookies.map(\.name) == ["a"])
        jar.removeAll()
        let second = try await setup.send("/r") { UseCookies(jar) }
        #expect(first.headers["Set-Cookie"] == "a=1")
        #expect(second.cacheStatus == .hit && second.headers["Set-Cookie"] == "a=1")
        #expect(jar.allCookies.isEmpty)
    }

    @Test("Fields named by Connection are not stored")
    func connectionFields() async throws {
        let setup = try Setup()
        setup.origin.route(
            "/r", [("Cache-Control", "max-age=60"), ("Connection", "X-Hop"), ("X-Hop", "1"), ("X-End", "2")])
        _ = try await setup.send("/r")
        let hit = try await setup.send("/r")
        #expect(hit.cacheStatus == .hit && hit.headers["X-Hop"] == nil && hit.headers["X-End"] == "2")
    }

    @Test("A range request is answered from a complete stored response with a 206")
    func range() async throws {
        let setup = try Setup()
        setup.origin.route("/r") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data("0123456789".utf8)))
        }
        _ = try await setup.send("/r")
        let partial = try await setup.send("/r") { Header.Any(key: "Range", value: "bytes=2-4") }
        #expect(partial.statusCode == 206 && partial.cacheStatus == .hit && setup.text(partial) == "234")
        #expect(partial.headers["Content-Range"] == "bytes 2-4/10")
        #expect(setup.origin.count("/r") == 1)
    }

    @Test("A POST response with explicit freshness and a Content-Location naming its URL answers a later GET")
    func postWithContentLocation() async throws {
        let setup = try Setup()
        setup.origin.server.route("/r", method: "POST") { _ in
            TestResponse(
                headers: [("Cache-Control", "max-age=60"), ("Content-Location", "/r")], body: .data(Data("posted".utf8))
            )
        }
        _ = try await setup.send("/r") {
            Method(.post); Body("x")
        }
        let read = try await setup.send("/r")
        #expect(read.cacheStatus == .hit && setup.text(read) == "posted")
    }

    @Test("A hit goes through the request's limits and validation like a network response")
    func limitsAndValidation() async throws {
        let setup = try Setup()
        setup.origin.route("/big") { _, _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data(repeating: 65, count: 100)))
        }
        setup.origin.route("/gone", status: 404, [("Cache-Control", "max-age=60")])
        _ = try await setup.send("/big")
        await #expect(throws: RequestError.self) { _ = try await setup.send("/big") { MaxResponseSize(10) } }
        _ = try await setup.send("/gone")
        let error = await #expect(throws: RequestError.self) {
            try await Request {
                Url(setup.origin.url("/gone")); Cache(setup.cache)
            }.data()
        }
        #expect(error?.statusCode == 404 && error?.response?.cacheStatus == .hit)
        #expect(setup.origin.count("/big") == 1 && setup.origin.count("/gone") == 1)
    }

    @Test("stream() is answered from the cache with the stored bytes", arguments: WireTransport.all)
    func streamedHit(_ wire: WireTransport) async throws {
        let setup = try Setup(wire: wire)
        setup.origin.route("/r", [("Cache-Control", "max-age=60")])
        _ = try await setup.send("/r", transport: wire.transport)
        let streaming = try await Request {
            Url(setup.origin.url("/r")); Using(wire.transport); Cache(setup.cache)
        }.stream()
        #expect(streaming.head.cacheStatus == .hit)
        #expect(try await streaming.collect(upTo: 1000) == Data("1".utf8))
    }

    @Test("A client's configured cache is used by every request it sends")
    func clientConfiguration() async throws {
        let setup = try Setup()
        setup.origin.route("/r", [("Cache-Control", "max-age=60")])
        let client = Client(baseURL: setup.origin.server.baseURL) { $0.cache = setup.cache }
        let first = try await client.send(Request { Path("r") })
        let second = try await client.send(Request { Path("r") })
        #expect([first.cacheStatus, second.cacheStatus] == [.network, .hit])
        #expect(setup.origin.count("/r") == 1)
    }

    @Test("Polling through a cache: a fresh response is not fetched again, and unchanged is reported as before")
    func polling() async throws {
        let setup = try Setup()
        setup.origin.route("/r") { count, request in
            if request.header("If-None-Match") == "\"v1\"" {
                return TestResponse(status: 304, headers: [("ETag", "\"v1\""), ("Cache-Control", "max-age=30")])
            }
            return TestResponse(headers: [("Cache-Control", "max-age=30"), ("ETag", "\"v1\"")])
        }
        let polls = Task {
            var results: [String] = []
            for await result in Request({
                Url(setup.origin.url("/r")); Cache(setup.cache); UseClock(setup.clock)
            }).poll(every: .seconds(20), maxCount: 4) {
                results.append(
                    result.isUnchanged ? "unchanged" : result.response.map { "\($0.cacheStatus)" } ?? "failed")
            }
            return results
        }
        for _ in 0..<3 {
            await setup.clock.waitForSleepers(count: 1)
            await setup.clock.advance(by: .seconds(20))
        }
        #expect(await polls.value == ["network", "unchanged", "unchanged", "unchanged"])
        // At 0 s the first response; at 20 s a hit; at 40 s a 304 from the server; at 60 s a hit again.
        #expect(setup.origin.server.requests.map { $0.header("If-None-Match") } == [nil, "\"v1\""])
    }

    @Test("A disk cache answers from its files, also after the cache object is made again")
    func diskStore() async throws {
        let setup = try Setup()
        let directory = DiskCacheStoreTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        setup.origin.route("/r", [("Cache-Control", "max-age=60"), ("ETag", "\"1\"")])
        for _ in 0..<2 {
            let cache = ResponseCache(.disk(at: directory, maxBytes: 1 << 20), clock: RequestClock(setup.clock))
            let response = try await Request {
                Url(setup.origin.url("/r")); Cache(cache)
            }.send()
            #expect(String(decoding: response.body, as: UTF8.self) == "1")
        }
        #expect(setup.origin.count("/r") == 1)
    }
}
