import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Time given as a Duration or in seconds, wherever time is taken", .wallClock)
struct TimeUnitsTests {
    @Test("poll(every:) takes seconds", arguments: WireTransport.all)
    func pollInSeconds(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        var statuses: [Int] = []
        for await result in Request({
            Url(server.url("/anything")); Using(wire.transport)
        }).poll(every: 0.01, maxCount: 2) {
            if case .changed(let response) = result { statuses.append(response.statusCode) }
        }
        #expect(statuses == [200, 200])
    }

    @Test("update(every:) takes a Duration", arguments: WireTransport.all)
    func updateWithDuration(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = TestClock()
        let handle = Request {
            Url(server.url("/anything")); Using(wire.transport); UseClock(clock)
        }
        .update(every: .milliseconds(250))
        #expect(await clock.advanceToNextSleeper() == .milliseconds(250))
        #expect(await clock.waitForSleepers(count: 1))
        handle.cancel()
        await handle.wait()
        #expect(server.requests.count == 2)
    }

    @Test("Retry delays and backoff maximums take Durations and seconds alike")
    func retryAndBackoff() {
        let policy = RetryPolicy.exponential(maxAttempts: 4, baseDelay: .milliseconds(250), maximumDelay: .seconds(2))
        #expect(policy.maxAttempts == 4)
        #expect(policy.baseDelay == 0.25)
        #expect(policy.maximumDelay == 2)
        #expect(RetryDecision.retry(after: .milliseconds(1500)).delay == 1.5)
        #expect(Backoff.exponential(maximum: 60) == Backoff.exponential(maximum: .seconds(60)))
    }
}
