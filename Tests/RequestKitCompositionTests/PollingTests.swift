import Foundation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Polling: one request per tick, conditional requests and backoff", .timeLimit(.minutes(5)), .wallClock)
struct PollingTests {
    /// A short description of each result, for exact comparisons.
    private static func summary(_ result: PollResult) -> String {
        switch result {
        case .changed(let response): "changed \(response.statusCode)"
        case .unchanged: "unchanged"
        case .failed(let error): "failed \(error.statusCode ?? 0)"
        }
    }

    /// Collects a poll sequence's results in a task of its own, so the test can drive the clock meanwhile.
    private static func collect(_ polls: PollSequence) -> Task<[String], Never> {
        Task {
            var results: [String] = []
            for await result in polls { results.append(summary(result)) }
            return results
        }
    }

    @Test(
        "poll with maxCount 3 sends exactly 3 requests, waiting the interval between them", arguments: WireTransport.all
    )
    func maxCount(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url(server.url("/anything")); Using(wire.transport); UseClock(clock)
            }.poll(every: .seconds(50), maxCount: 3))
        #expect(await clock.advanceToNextSleeper() == .seconds(50))
        #expect(await clock.advanceToNextSleeper() == .seconds(50))
        #expect(await polls.value == ["changed 200", "changed 200", "changed 200"])
        #expect(server.stats.requestCount == 3)
        #expect(server.stats.peakActiveRequests == 1)
        #expect(clock.sleepCount == 2)
        #expect(clock.sleeperCount == 0)
    }

    @Test(
        "The second poll sends If-None-Match with the ETag, and a 304 is reported as unchanged",
        arguments: WireTransport.all)
    func entityTag(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/etag/v1")); Using(wire.transport)
        }
        var results: [String] = []
        for await result in request.poll(every: .milliseconds(20), maxCount: 3) {
            results.append(Self.summary(result))
        }
        #expect(results == ["changed 200", "unchanged", "unchanged"])
        let received = server.requests
        #expect(received.map { $0.header("If-None-Match") } == [nil, "\"v1\"", "\"v1\""])
    }

    @Test("Last-Modified comes back as If-Modified-Since", arguments: WireTransport.all)
    func lastModified(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        var results: [String] = []
        for await result in Request({
            Url(server.url("/cache")); Using(wire.transport)
        }).poll(every: .milliseconds(20), maxCount: 2) {
            results.append(Self.summary(result))
        }
        #expect(results == ["changed 200", "unchanged"])
        let second = try #require(server.requests.last)
        #expect(second.header("If-Modified-Since") == "Wed, 21 Oct 2015 07:28:00 GMT")
        #expect(second.header("If-None-Match") == "\"cache\"")
    }

    @Test("With conditional: false every poll downloads the resource again", arguments: WireTransport.all)
    func unconditional(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        var results: [String] = []
        let request = Request {
            Url(server.url("/etag/v1")); Using(wire.transport)
        }
        for await result in request.poll(every: .milliseconds(20), maxCount: 2, conditional: false) {
            results.append(Self.summary(result))
        }
        #expect(results == ["changed 200", "changed 200"])
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, nil])
    }

    @Test("Polling ends after the response for which until holds", arguments: WireTransport.all)
    func until(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/job") { _ in .json(Data(#"{"done":\#(counter.next() >= 3)}"#.utf8)) }
        let clock = TestClock()
        let request = Request {
            Url(server.url("/job")); Using(wire.transport); UseClock(clock)
        }
        let polls = Task {
            var done: [Bool] = []
            for await result in request.poll(every: .seconds(20), until: { (try? $0.json().done.bool) == true }) {
                done.append(result.response.flatMap { try? $0.json().done.bool } ?? false)
            }
            return done
        }
        await clock.advanceToNextSleeper()
        await clock.advanceToNextSleeper()
        #expect(await polls.value == [false, false, true])
        #expect(server.stats.requestCount == 3)
        #expect(clock.sleeperCount == 0)
    }

    @Test("Polling ends once the next request would start after maxDuration", arguments: WireTransport.all)
    func maxDuration(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url(server.url("/anything")); Using(wire.transport); UseClock(clock)
            }.poll(every: .seconds(100), maxDuration: .seconds(250)))
        // Requests at 0, 100 and 200 s; a fourth would start at 300 s, after the 250 s.
        #expect(await clock.advanceToNextSleeper() == .seconds(100))
        #expect(await clock.advanceToNextSleeper() == .seconds(100))
        #expect(await polls.value.count == 3)
        #expect(server.stats.requestCount == 3)
        #expect(clock.now.offset == .seconds(200))
        #expect(clock.sleeperCount == 0)
    }

    @Test("Cancelling the consuming task ends the sequence and the requests", arguments: WireTransport.all)
    func cancellation(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url(server.url("/anything")); Using(wire.transport); UseClock(clock)
            }.poll(every: .seconds(30)))
        await clock.advanceToNextSleeper()
        await clock.advanceToNextSleeper()
        #expect(await clock.waitForSleepers(count: 1))  // the third result is in; the poller waits
        polls.cancel()
        #expect(await polls.value == ["changed 200", "changed 200", "changed 200"])
        #expect(server.stats.requestCount == 3)
        #expect(clock.sleeperCount == 0)
    }

    @Test(
        "Failures back off exponentially, then the interval returns to normal after a success",
        arguments: WireTransport.all)
    func backoff(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/flaky") { _ in counter.next() <= 2 ? .status(503) : .text("ok") }
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url(server.url("/flaky")); Using(wire.transport); UseClock(clock)
            }.poll(
                every: .seconds(50), maxCount: 4, backoff: Backoff(multiplier: 4, maximum: .seconds(10_000), jitter: 0))
        )
        var waits: [Duration?] = []
        for _ in 1...3 { waits.append(await clock.advanceToNextSleeper()) }
        #expect(waits == [.seconds(200), .seconds(800), .seconds(50)])
        #expect(await polls.value == ["failed 503", "failed 503", "changed 200", "changed 200"])
        #expect(server.stats.requestCount == 4)
    }

    @Test(
        "Polling at interval zero waits at least 10 ms, and still backs off from it on failures",
        arguments: WireTransport.all)
    func zeroInterval(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url(server.url("/status/503")); Using(wire.transport); UseClock(clock)
            }.poll(every: .zero, maxCount: 4, backoff: Backoff(multiplier: 2, maximum: .seconds(60), jitter: 0)))
        var waits: [Duration?] = []
        for _ in 1...3 { waits.append(await clock.advanceToNextSleeper()) }
        #expect(waits == [.milliseconds(20), .milliseconds(40), .milliseconds(80)])
        #expect(await polls.value == Array(repeating: "failed 503", count: 4))
        #expect(server.requests.count == 4)
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
        let server = try wire.server()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/tick") { _ in .json(Data(#"{"n":\#(counter.next())}"#.utf8)) }
        let log = Log()
        let clock = TestClock()
        let handle = Request {
            Url(server.url("/tick")); Using(wire.transport); UseClock(clock)
        }
        .onJson { json in log.add("n \(json.n.int ?? 0)") }
        .onError { error in log.add("error \(error.kind)") }
        .update(every: 0.2)
        #expect(await clock.advanceToNextSleeper() == .milliseconds(200))
        #expect(await clock.advanceToNextSleeper() == .milliseconds(200))
        #expect(await clock.waitForSleepers(count: 1))  // the third response's handlers ran; the next tick waits
        handle.cancel()
        await handle.wait()
        #expect(log.entries == ["n 1", "n 2", "n 3"])
        #expect(server.stats.requestCount == 3)
        #expect(server.stats.peakActiveRequests == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test("update(every:) reports failures to onError and skips unchanged responses", arguments: WireTransport.all)
    func updateConditionalAndFailures(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let log = Log()
        let clock = TestClock()
        let unchanged = Request {
            Url(server.url("/etag/v2")); Using(wire.transport); UseClock(clock)
        }
        .onStatusCode { log.add("status \($0)") }
        .update(every: 0.05)
        let failing = Request {
            Url(server.url("/status/503")); Using(wire.transport); UseClock(clock)
        }
        .onError { log.add("error \($0.statusCode ?? 0)") }
        .update(every: 0.05, backoff: .none)
        for _ in 1...3 {
            #expect(await clock.waitForSleepers(count: 2))
            await clock.advance(by: .milliseconds(50))
        }
        #expect(await clock.waitForSleepers(count: 2))
        unchanged.cancel()
        failing.cancel()
        await unchanged.wait()
        await failing.wait()
        let entries = log.entries
        #expect(entries.filter { $0 == "status 200" }.count == 1)
        #expect(entries.filter { $0 == "error 503" }.count == 4)
        #expect(entries.count == 5)
        let conditional = server.requests.filter { $0.path == "/etag/v2" }
        #expect(conditional.map { $0.header("If-None-Match") } == [nil, "\"v2\"", "\"v2\"", "\"v2\""])
        #expect(server.requests.filter { $0.path == "/status/503" }.count == 4)
    }
}
