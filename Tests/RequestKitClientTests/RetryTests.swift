import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Retry policy", .timeLimit(.minutes(5)), .wallClock)
struct RetryTests {
    /// A route answering `failures` times with `status` (and `headers`), then 200.
    private func flaky(_ server: TestServer, failures: Int, status: Int = 503, headers: [(String, String)] = []) {
        let counter = Counter()
        server.route("/flaky") { _ in
            counter.next() <= failures
                ? TestResponse(status: status, headers: headers.map { (name: $0.0, value: $0.1) }) : .text("done")
        }
    }

    @Test("A GET is retried on 503 until it succeeds, and monitors see every attempt", arguments: WireTransport.all)
    func retriesUntilSuccess(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        flaky(server, failures: 2)
        let log = Log()
        let client = Client(baseURL: server.url("/")) { configuration in
            configuration.transport = transport.transport
            configuration.retryPolicy = .exponential(maxAttempts: 3, baseDelay: 0.01)
            configuration.monitors = [EventRecorder(log: log)]
        }
        #expect(try await client.string(Request { Path("flaky") }) == "done")
        #expect(
            log.entries == [
                "start 1 GET /flaky", "response 1 503", "retry 2", "start 2 GET /flaky", "response 2 503", "retry 3",
                "start 3 GET /flaky", "response 3 200",
            ])
    }

    @Test("Attempts stop at the maximum and the last response is returned", arguments: WireTransport.all)
    func maximumAttempts(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        flaky(server, failures: 10, status: 500)
        let response = try await Request {
            Url(server.url("/flaky"))
            Using(transport.transport); Retry(.exponential(maxAttempts: 3, baseDelay: 0.01))
        }.send()
        #expect(response.statusCode == 500)
        #expect(server.requests.count == 3)
    }

    @Test("A POST is not retried by default; statuses outside the list are not retried", arguments: WireTransport.all)
    func onlyIdempotentAndListedStatuses(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        flaky(server, failures: 1)
        let post = try await Request {
            Url(server.url("/flaky"))
            Using(transport.transport); Method(.post); Retry(.exponential(maxAttempts: 3, baseDelay: 0.01))
        }.send()
        #expect(post.statusCode == 503)
        #expect(server.requests.count == 1)
        let notFound = try await Request {
            Url(server.url("/status/404"))
            Using(transport.transport); Retry(.exponential(maxAttempts: 3, baseDelay: 0.01))
        }.send()
        #expect(notFound.statusCode == 404)
        #expect(server.requests.count == 2)
    }

    @Test("Retry-After in seconds sets the delay", arguments: WireTransport.all)
    func retryAfterSeconds(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        flaky(server, failures: 1, status: 429, headers: [("Retry-After", "1")])
        let clock = TestClock()
        let task = Task {
            try await Request {
                Url(server.url("/flaky"))
                Using(transport.transport); Retry(.exponential(maxAttempts: 2, baseDelay: 0.01)); UseClock(clock)
            }.send()
        }
        #expect(await clock.advanceToNextSleeper() == .seconds(1))
        #expect(try await task.value.statusCode == 200)
        #expect(server.requests.count == 2)
        #expect(clock.sleepCount == 1)
    }

    @Test(
        "Retry-After as an HTTP-date is honoured, and a long one is capped by the maximum delay",
        arguments: WireTransport.all)
    func retryAfterDateAndCap(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: Date().addingTimeInterval(1_000))
        flaky(server, failures: 1, status: 503, headers: [("Retry-After", date)])
        let clock = TestClock()
        let dated = Task {
            try await Request {
                Url(server.url("/flaky"))
                Using(transport.transport); Retry(.exponential(maxAttempts: 2, baseDelay: 0.01, maximumDelay: 10_000))
                UseClock(clock)
            }.send()
        }
        // The date has whole seconds, and the wall clock moves on while the first attempt is under way (for minutes,
        // on a starved machine).
        let wait = try #require(await clock.advanceToNextSleeper())
        #expect(wait > .seconds(500) && wait <= .seconds(1_000))
        #expect(try await dated.value.statusCode == 200)

        server.route("/limited") { _ in TestResponse(status: 429, headers: [("Retry-After", "100")]) }
        let capped = Task {
            try await Request {
                Url(server.url("/limited"))
                Using(transport.transport); Retry(.exponential(maxAttempts: 2, baseDelay: 0.01, maximumDelay: 0.2))
                UseClock(clock)
            }.send()
        }
        #expect(await clock.advanceToNextSleeper() == .milliseconds(200))
        #expect(try await capped.value.statusCode == 429)
        #expect(server.requests.filter { $0.path == "/limited" }.count == 2)
    }

    @Test("The resource timeout covers every attempt and the waits between them", arguments: WireTransport.all)
    func resourceTimeoutCoversRetries(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let clock = TestClock()
        let task = Task {
            try await Request {
                Url(server.url("/status/503"))
                Using(transport.transport)
                Retry(.exponential(maxAttempts: 50, baseDelay: 0.3, jitter: false))
                Timeout(1, for: .resource)
                UseClock(clock)
            }.send()
        }
        // The deadline and one retry wait sleep side by side: retries at 0.3 s and 0.9 s, then the 1 s deadline.
        var waits: [[Int64]] = []
        for step in [Duration.milliseconds(300), .milliseconds(600), .milliseconds(100)] {
            #expect(await clock.waitForSleepers(count: 2))
            waits.append(clock.pendingWaits.map(\.roundedMilliseconds))
            await clock.advance(by: step)
        }
        #expect(waits == [[300, 1_000], [600, 700], [100, 1_200]])
        let error = try await #require(throws: RequestError.self) { try await task.value }
        #expect(error.kind == .timedOut)
        #expect(error.description.contains("total deadline"))
        #expect(server.requests.count == 3)
        #expect(clock.sleeperCount == 0)
    }

    @Test("Cancelling the task stops the wait before a retry", arguments: WireTransport.all)
    func cancellationStopsWaiting(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/busy") { _ in TestResponse(status: 503, headers: [("Retry-After", "30")]) }
        let clock = TestClock()
        let task = Task {
            try await Request {
                Url(server.url("/busy"))
                Using(transport.transport); Retry(.exponential(maxAttempts: 3)); UseClock(clock)
            }.send()
        }
        #expect(await clock.waitForSleepers(count: 1))
        #expect(clock.pendingWaits == [.seconds(30)])
        task.cancel()
        switch await task.result {
        case .success(let response): Issue.record("expected a cancellation, got \(response)")
        case .failure(let error): #expect((error as? RequestError)?.kind == .cancelled)
        }
        #expect(server.requests.count == 1)
        #expect(clock.sleeperCount == 0)
    }

    @Test("A refused connection is a transient error that is retried")
    func connectionRefused() async throws {
        let down = try RefusingPort()
        let url = down.url("/anything")
        let log = Log()
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(url); Retry(.exponential(maxAttempts: 3, baseDelay: 0.01)); Monitor(EventRecorder(log: log))
            }.send()
        }
        #expect(error.kind == .transport)
        #expect(log.entries.filter { $0.hasPrefix("start") }.count == 3)
        #expect(log.entries.last == "failed 3 transport")
    }

    @Test("Backoff grows exponentially within the jitter range and stops at the maximum delay")
    func backoffDelays() {
        let policy = RetryPolicy.exponential(maxAttempts: 10, baseDelay: 1, maximumDelay: 5)
        let busy = Result<Response, RequestError>.success(Response(status: .serviceUnavailable))
        for _ in 0..<20 {
            let first = policy.delay(after: busy, method: .get, attempt: 1) ?? -1
            let third = policy.delay(after: busy, method: .get, attempt: 3) ?? -1
            let tenth = policy.delay(after: busy, method: .get, attempt: 9) ?? -1
            #expect((0.5...1).contains(first))
            #expect((2...4).contains(third))
            #expect((2.5...5).contains(tenth))
        }
        #expect(policy.delay(after: busy, method: .get, attempt: 10) == nil)
        #expect(policy.delay(after: busy, method: .patch, attempt: 1) == nil)
        #expect(RetryPolicy.none.delay(after: busy, method: .get, attempt: 1) == nil)
    }
}
