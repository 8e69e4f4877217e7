import Foundation
import RequestKit
import RequestKitTesting
import Testing

@Suite("Polling: one request per tick, conditional requests and backoff")
struct PollingTests {
    /// A short description of each result, for exact comparisons.
    private func summary(_ result: PollResult) -> String {
        switch result {
        case .changed(let response): "changed \(response.statusCode)"
        case .unchanged: "unchanged"
        case .failed(let error): "failed \(error.statusCode ?? 0)"
        }
    }

    @Test("poll with maxCount 3 sends exactly 3 requests and ends", arguments: WireTransport.all)
    func maxCount(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        var results: [String] = []
        for await result in Request({
            Url(server.url("/anything")); Using(wire.transport)
        }).poll(every: .milliseconds(50), maxCount: 3) {
            results.append(summary(result))
        }
        #expect(results == ["changed 200", "changed 200", "changed 200"])
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.stats.requestCount == 3)
        #expect(server.stats.peakActiveRequests == 1)
    }

    @Test(
        "The second poll sends If-None-Match with the ETag, and a 304 is reported as unchanged",
        arguments: WireTransport.all)
    func entityTag(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/etag/v1")); Using(wire.transport)
        }
        var results: [String] = []
        for await result in request.poll(every: .milliseconds(20), maxCount: 3) { results.append(summary(result)) }
        #expect(results == ["changed 200", "unchanged", "unchanged"])
        let received = server.requests
        #expect(received.map { $0.header("If-None-Match") } == [nil, "\"v1\"", "\"v1\""])
    }

    @Test("Last-Modified comes back as If-Modified-Since", arguments: WireTransport.all)
    func lastModified(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        var results: [String] = []
        for await result in Request({
            Url(server.url("/cache")); Using(wire.transport)
        }).poll(every: .milliseconds(20), maxCount: 2) {
            results.append(summary(result))
        }
        #expect(results == ["changed 200", "unchanged"])
        let second = try #require(server.requests.last)
        #expect(second.header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(second.header("If-None-Match") == "\"cache\"")
    }

    @Test("With conditional: false every poll downloads the resource again", arguments: WireTransport.all)
    func unconditional(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        var results: [String] = []
        let request = Request {
            Url(server.url("/etag/v1")); Using(wire.transport)
        }
        for await result in request.poll(every: .milliseconds(20), maxCount: 2, conditional: false) {
            results.append(summary(result))
        }
        #expect(results == ["changed 200", "changed 200"])
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, nil])
    }

    @Test("Polling ends after the response for which until holds", arguments: WireTransport.all)
    func until(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/job") { _ in .json(Data(#"{"done":\#(counter.next() >= 3)}"#.utf8)) }
        let request = Request {
            Url(server.url("/job")); Using(wire.transport)
        }
        var done: [Bool] = []
        let polls = request.poll(every: .milliseconds(20), until: { (try? $0.json().done.bool) == true })
        for await result in polls { done.append(result.response.flatMap { try? $0.json().done.bool } ?? false) }
        #expect(done == [false, false, true])
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.stats.requestCount == 3)
    }

    @Test("Polling ends once the next request would start after maxDuration", arguments: WireTransport.all)
    func maxDuration(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/anything")); Using(wire.transport)
        }
        var count = 0
        for await _ in request.poll(every: .milliseconds(100), maxDuration: .milliseconds(250)) { count += 1 }
        #expect((1...3).contains(count))
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.stats.requestCount == count)
    }

    @Test("Cancelling the consuming task ends the sequence and the requests", arguments: WireTransport.all)
    func cancellation(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/anything")); Using(wire.transport)
        }
        let task = Task {
            var count = 0
            for await _ in request.poll(every: .milliseconds(30)) { count += 1 }
            return count
        }
        #expect(await server.waitForRequests(count: 3, timeout: .seconds(5)))
        task.cancel()
        let delivered = await task.value
        let sent = server.stats.requestCount
        #expect(delivered >= 2)
        #expect(delivered <= sent)
        try await Task.sleep(for: .milliseconds(200))
        #expect(server.stats.requestCount == sent)
    }

    @Test(
        "Failures back off exponentially, then the interval returns to normal after a success",
        arguments: WireTransport.all)
    func backoff(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/flaky") { _ in counter.next() <= 2 ? .status(503) : .text("ok") }
        let request = Request {
            Url(server.url("/flaky")); Using(wire.transport)
        }
        var results: [String] = []
        let polls = request.poll(
            every: .milliseconds(50), maxCount: 4, backoff: Backoff(multiplier: 4, maximum: .seconds(10), jitter: 0))
        for await result in polls { results.append(summary(result)) }
        #expect(results == ["failed 503", "failed 503", "changed 200", "changed 200"])
        let times = server.requests.map(\.receivedAt)
        try #require(times.count == 4)
        #expect(times[1] - times[0] >= .milliseconds(190))
        #expect(times[2] - times[1] >= .milliseconds(790))
        #expect(times[3] - times[2] < .milliseconds(700))
    }

    @Test("Backoff grows by the multiplier, is capped, and jitters within its fraction")
    func backoffDelays() {
        let plain = Backoff(multiplier: 2, maximum: .seconds(5), jitter: 0)
        let second = Duration.seconds(1)
        #expect(plain.delay(afterFailures: 0, interval: second) == .seconds(1))
        #expect(plain.delay(afterFailures: 1, interval: second) == .seconds(2))
        #expect(plain.delay(afterFailures: 2, interval: second) == .seconds(4))
        #expect(plain.delay(afterFailures: 3, interval: second) == .seconds(5))
        #expect(plain.delay(afterFailures: 1_000, interval: second) == .seconds(5))
        #expect(Backoff.none.delay(afterFailures: 5, interval: second) == .seconds(1))
        let jittered = Backoff(multiplier: 2, maximum: .seconds(100), jitter: 0.1)
        for _ in 0..<100 {
            let delay = jittered.delay(afterFailures: 3, interval: second)
            #expect(delay >= .milliseconds(7_199) && delay <= .milliseconds(8_801))
        }
    }

    @Test(
        "update(every:) runs the handlers once per request, never overlapping, and stops when cancelled",
        arguments: WireTransport.all)
    func update(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/tick") { _ in .json(Data(#"{"n":\#(counter.next())}"#.utf8)) }
        let log = Log()
        let handle = Request {
            Url(server.url("/tick")); Using(wire.transport)
        }
        .onJson { json in log.add("n \(json.n.int ?? 0)") }
        .onError { error in log.add("error \(error.kind)") }
        .update(every: 0.2)
        #expect(await server.waitForRequests(count: 3, timeout: .seconds(5)))
        handle.cancel()
        await handle.wait()
        let sent = server.stats.requestCount
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.stats.requestCount == sent)
        #expect(server.stats.peakActiveRequests == 1)
        let entries = log.entries
        #expect(entries.count == sent || entries.count == sent - 1)
        #expect(entries == (1...entries.count).map { "n \($0)" })
    }

    @Test("update(every:) reports failures to onError and skips unchanged responses", arguments: WireTransport.all)
    func updateConditionalAndFailures(_ wire: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let log = Log()
        let unchanged = Request {
            Url(server.url("/etag/v2")); Using(wire.transport)
        }
        .onStatusCode { log.add("status \($0)") }
        .update(every: 0.05)
        let failing = Request {
            Url(server.url("/status/503")); Using(wire.transport)
        }
        .onError { log.add("error \($0.statusCode ?? 0)") }
        .update(every: 0.05, backoff: .none)
        #expect(await server.waitForRequests(count: 6, timeout: .seconds(5)))
        unchanged.cancel()
        failing.cancel()
        await unchanged.wait()
        await failing.wait()
        let entries = log.entries
        #expect(entries.filter { $0 == "status 200" }.count == 1)
        #expect(entries.allSatisfy { $0 == "status 200" || $0 == "error 503" })
        #expect(entries.filter { $0 == "error 503" }.count >= 1)
        let conditional = server.requests.filter { $0.path == "/etag/v2" }.dropFirst()
        #expect(conditional.allSatisfy { $0.header("If-None-Match") == "\"v2\"" })
    }
}
