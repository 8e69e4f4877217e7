import Foundation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitURLSession
import Testing

@testable import RequestKitTesting

@Suite("RequestGroup: concurrent requests with a limit", .wallClock)
struct RequestGroupTests {
    /// A server whose `/slow` route holds each request until `limit` have been in flight together (at most 30 s),
    /// then 50 ms more, so a client that sends more than `limit` at once is caught however slowly a busy machine
    /// starts its requests. The server's loop holds them, not its threads; `stats.peakActiveRequests` counts them.
    private func slowServer(limit: Int, for wire: WireTransport) throws -> TestServer {
        let server = try wire.server()
        server.route("/slow") { [weak server] _ in
            TestResponse.text("done")
                .held(longest: .seconds(30)) { [weak server] in (server?.stats.peakActiveRequests ?? limit) >= limit }
                .delayed(by: .milliseconds(50))
        }
        return server
    }

    @Test(
        "The server never handles more requests at once than the limit, and handles exactly the limit",
        arguments: WireTransport.all)
    func concurrencyLimit(_ wire: WireTransport) async throws {
        let server = try slowServer(limit: 4, for: wire)
        defer { server.stop() }
        let group = RequestGroup(maxConcurrent: 4) {
            for index in 0..<10 {
                Request {
                    Url(server.url("/slow?i=\(index)")); Using(wire.transport)
                }
            }
        }
        let results = try await group.send()
        #expect(results.compactMap { try? $0.get().string() } == Array(repeating: "done", count: 10))
        #expect(server.requests.map { $0.queryValue("i") ?? "" }.sorted() == (0..<10).map(String.init).sorted())
        #expect(server.stats.peakActiveRequests == 4)
    }

    @Test("The default limit is 4 requests at once, fewer than the default transports' connections per host")
    func defaultLimitLeavesRoom() {
        #expect(RequestGroup.defaultMaxConcurrent == 4)
        #expect(RequestGroup.defaultMaxConcurrent < URLSessionTransport.shared.maxConnectionsPerHost)
        #expect(URLSessionTransport.shared.maxConnectionsPerHost == URLSessionTransport.defaultMaxConnectionsPerHost)
        #expect(RequestGroup.defaultMaxConcurrent < NativeTransport.Configuration().maxConnectionsPerHost)
        #expect(URLSessionTransport(maxConnectionsPerHost: 16).maxConnectionsPerHost == 16)
        #expect(URLSessionTransport(maxConnectionsPerHost: 0).maxConnectionsPerHost == 1)
    }

    @Test(
        "A default group of requests the server holds does not stall another request to the same host",
        arguments: WireTransport.all)
    func defaultGroupLeavesRoom(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let gate = Gate()
        server.route("/held") { _ in TestResponse.text("released").held(longest: .seconds(40)) { gate.isOpen } }
        let group = RequestGroup {
            for _ in 0..<8 {
                Request {
                    Url(server.url("/held")); Using(wire.transport)
                }
            }
        }
        let running = Task { try await group.send() }
        #expect(await server.waitForRequests(count: RequestGroup.defaultMaxConcurrent, timeout: .seconds(120)))
        let other = try await Request {
            Url(server.url("/anything")); Using(wire.transport); Timeout(20)
        }.send()
        #expect(other.statusCode == 200)
        #expect(!gate.isOpen)
        gate.open()
        let results = try await running.value
        #expect(results.compactMap { try? $0.get().string() } == Array(repeating: "released", count: 8))
    }

    @Test("The default limit is 4 requests at once", arguments: WireTransport.all)
    func defaultLimit(_ wire: WireTransport) async throws {
        let server = try slowServer(limit: 4, for: wire)
        defer { server.stop() }
        let group = RequestGroup {
            for _ in 0..<8 {
                Request {
                    Url(server.url("/slow")); Using(wire.transport)
                }
            }
        }
        #expect(group.maxConcurrent == 4)
        _ = try await group.send()
        #expect(server.stats.peakActiveRequests == 4)
        #expect(server.stats.requestCount == 8)
    }

    @Test("Thousands of requests run with at most the limit in flight, results in declaration order")
    func manyRequests() async throws {
        let gauge = InFlightGauge()
        let mock = MockTransport { request in
            gauge.enter()
            defer { gauge.leave() }
            try await Task.sleep(nanoseconds: 100_000)
            return Response(status: .ok, body: Data((request.url?.query ?? "").utf8))
        }
        let group = RequestGroup(
            (0..<2_000).map { index in
                Request {
                    Url("http://api.test/x?\(index)"); Using(mock)
                }
            })
        let results = try await group.send()
        let bodies = results.map { (try? $0.get()).map { String(decoding: $0.body, as: UTF8.self) } }
        #expect(bodies == (0..<2_000).map { Optional(String($0)) })
        #expect(gauge.peak <= 6)
        #expect(gauge.peak >= 2)
    }

    @Test("Results come back in declaration order, not completion order", arguments: WireTransport.all)
    func declarationOrder(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let results = try await RequestGroup {
            Request {
                Url(server.url("/delay/0.4")); Using(wire.transport)
            }
            Request {
                Url(server.url("/anything/fast")); Using(wire.transport)
            }
        }.send()
        let paths = try results.map { try $0.get().json().path.string }
        #expect(paths == ["/delay/0.4", "/anything/fast"])
    }

    @Test("The builder takes if, else and for, in order")
    func builder() async throws {
        let include = true
        let group = RequestGroup {
            Request { Url("http://api.test/a") }
            if include { Request { Url("http://api.test/b") } } else { Request { Url("http://api.test/x") } }
            if !include { Request { Url("http://api.test/y") } }
            for name in ["c", "d"] { Request { Url("http://api.test/\(name)") } }
        }
        let urls = try group.requests.map { try $0.urlRequest().url?.absoluteString }
        #expect(urls == ["http://api.test/a", "http://api.test/b", "http://api.test/c", "http://api.test/d"])
    }

    @Test(
        "One failure among many loses nothing else; a 404 is a failure because results are validated",
        arguments: WireTransport.all)
    func oneFailure(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let results = try await RequestGroup {
            Request {
                Url(server.url("/anything?n=0")); Using(wire.transport)
            }
            Request {
                Url(server.url("/status/404")); Using(wire.transport)
            }
            Request {
                Url(server.url("/anything?n=2")); Using(wire.transport)
            }
        }.send()
        #expect(try results[0].get().json().args.n.string == "0")
        let error = try #require(throws: RequestError.self) { try results[1].get() }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
        #expect(try results[2].get().json().args.n.string == "2")
    }

    @Test(
        "Failing fast cancels the requests in flight, starts no others, and throws the failure",
        arguments: WireTransport.all)
    func failFast(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        // The failure comes only once both slow requests are in (the server has all three), so that both are in
        // flight when it does, however slowly a loaded machine gets them there.
        server.route("/fail-later") { [weak server] _ in
            TestResponse.status(500).held(longest: .seconds(60)) { [weak server] in
                (server?.stats.requestCount ?? 3) >= 3
            }
        }
        // Slow enough that only a cancellation can end them within the wait below, on any machine.
        server.route("/slow") { _ in TestResponse.text("late").delayed(by: .seconds(300)) }
        let group = RequestGroup(maxConcurrent: 3, failFast: true) {
            Request {
                Url(server.url("/fail-later")); Using(wire.transport)
            }
            for _ in 0..<6 {
                Request {
                    Url(server.url("/slow")); Using(wire.transport)
                }
            }
        }
        let error = try await #require(throws: RequestError.self) { try await group.send() }
        #expect(error.statusCode == 500)
        // The two /slow requests in flight were cancelled, not left to finish.
        #expect(
            await server.waitUntil(timeout: .seconds(60)) { $0.abortedRequests == 2 }, "\(server.stats)")
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.stats.requestCount == 3)
        #expect(server.stats.abortedRequests == 2)
    }

    @Test("send(failFast:) overrides the group's setting")
    func failFastOverride() async throws {
        let mock = MockTransport()
        mock.enqueue(Response(status: .internalServerError))
        let group = RequestGroup(maxConcurrent: 1) {
            Request {
                Url("http://api.test/a"); Using(mock)
            }
        }
        let error = try await #require(throws: RequestError.self) { try await group.send(failFast: true) }
        #expect(error.statusCode == 500)
    }

    @Test("Cancelling the awaiting task cancels every outstanding request", arguments: WireTransport.all)
    func taskCancellation(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let group = RequestGroup(maxConcurrent: 3) {
            for _ in 0..<5 {
                Request {
                    Url(server.url("/delay/300")); Using(wire.transport)
                }
            }
        }
        let task = Task { try await group.send() }
        #expect(await server.waitForRequests(count: 3, timeout: .seconds(120)))
        task.cancel()
        let error = try await #require(throws: RequestError.self) { try await task.value }
        #expect(error.kind == .cancelled)
        #expect(await server.waitUntil { $0.abortedRequests == 3 })
        #expect(server.stats.requestCount == 3)
    }

    @Test("responses yields (index, result) pairs as they complete", arguments: WireTransport.all)
    func responsesInCompletionOrder(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        // The first request is answered only once the second's result has been seen, however busy the machine.
        let gate = Gate()
        server.route("/held") { _ in TestResponse.text("released").held(longest: .seconds(40)) { gate.isOpen } }
        let group = RequestGroup {
            Request {
                Url(server.url("/held")); Using(wire.transport)
            }
            Request {
                Url(server.url("/status/404")); Using(wire.transport)
            }
        }
        var seen: [String] = []
        for try await (index, result) in group.responses {
            gate.open()
            switch result {
            case .success(let response): seen.append("\(index): \(response.statusCode)")
            case .failure(let error): seen.append("\(index): error \(error.statusCode ?? 0)")
            }
        }
        #expect(seen == ["1: error 404", "0: 200"])
    }

    @Test("responses of a fail-fast group throws the first failure after delivering it", arguments: WireTransport.all)
    func resultsFailFast(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let group = RequestGroup(maxConcurrent: 1, failFast: true) {
            Request {
                Url(server.url("/anything")); Using(wire.transport)
            }
            Request {
                Url(server.url("/status/503")); Using(wire.transport)
            }
            Request {
                Url(server.url("/anything")); Using(wire.transport)
            }
        }
        var indices: [Int] = []
        let error = try await #require(throws: RequestError.self) {
            for try await (index, _) in group.responses { indices.append(index) }
        }
        #expect(indices == [0, 1])
        #expect(error.statusCode == 503)
        #expect(server.stats.requestCount == 2)
    }

    @Test(
        "Callbacks get each index with its JSON, text, body or error, then every result", arguments: WireTransport.all)
    func callbacks(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        server.route("/word/{word}") { request in
            .json(Data(#"{"word":"\#(request.pathParameters["word"] ?? "")"}"#.utf8))
        }
        server.route("/not-json") { _ in .text("plain words") }
        let log = Log()
        await RequestGroup(maxConcurrent: 1) {
            Request {
                Url(server.url("/word/a")); Using(wire.transport)
            }
            Request {
                Url(server.url("/status/404")); Using(wire.transport)
            }
            Request {
                Url(server.url("/not-json")); Using(wire.transport)
            }
        }
        .onJson { index, json in log.add("json \(index) \(json.word.string ?? "?")") }
        .onString { index, text in log.add("string \(index) \(text)") }
        .onData { index, data in log.add("data \(index) \(data.count)") }
        .onError { index, error in log.add("error \(index) \(error.kind) \(error.statusCode ?? 0)") }
        .onComplete { results in log.add("complete \(results.map { (try? $0.get().statusCode) ?? 0 })") }
        .call()
        .wait()
        #expect(
            log.entries == [
                "json 0 a", #"string 0 {"word":"a"}"#, "data 0 12",
                "error 1 unacceptableStatus 404",
                "error 2 decoding 200",
                "complete [200, 0, 200]",
            ])
    }

    @Test(
        "Cancelling a call's handle cancels the requests; onComplete reports them cancelled",
        arguments: WireTransport.all)
    func handleCancellation(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let log = Log()
        let handle = RequestGroup {
            Request {
                Url(server.url("/delay/300")); Using(wire.transport)
            }
            Request {
                Url(server.url("/delay/300")); Using(wire.transport)
            }
        }
        .onError { index, error in log.add("error \(index) \(error.kind)") }
        .onComplete { results in log.add("complete \(results.map { (try? $0.get()) == nil })") }
        .call()
        #expect(await server.waitForRequests(count: 2, timeout: .seconds(120)))
        handle.cancel()
        await handle.wait()
        #expect(log.entries.sorted() == ["complete [true, true]", "error 0 cancelled", "error 1 cancelled"])
        #expect(await server.waitUntil { $0.abortedRequests == 2 })
    }
}
