import Foundation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("How polling ended: the condition, maxCount, maxDuration or cancellation", .timeLimit(.minutes(5)), .wallClock)
struct PollEndTests {
    /// Answers each request with `{"n": count}`, counting from 1.
    private static func counting() -> MockTransport {
        let counter = CallCounter()
        return MockTransport { _ in Response(status: .ok, body: Data(#"{"n":\#(counter.next())}"#.utf8)) }
    }

    /// Polls in a task of its own and returns each result's `n` with the iterator's `end` as it was after it,
    /// and the `end` once `next()` returned nil.
    private static func collect(_ polls: PollSequence) -> Task<([String], PollEnd?), Never> {
        Task {
            var iterator = polls.makeAsyncIterator()
            var seen: [String] = []
            while let result = await iterator.next() {
                let n = result.response.flatMap { try? $0.json().n.int } ?? 0
                seen.append("\(n) \(iterator.end.map { "\($0)" } ?? "going")")
            }
            return (seen, iterator.end)
        }
    }

    private static func isDone(after count: Int) -> @Sendable (Response) -> Bool {
        { response in ((try? response.json().n.int) ?? 0) >= count }
    }

    @Test("After maxCount results the end is maxCount, set with the last result")
    func endsAtMaxCount() async {
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url("http://api.test/job"); Using(Self.counting()); UseClock(clock)
            }
            .poll(every: .seconds(10), maxCount: 3))
        #expect(await clock.advanceToNextSleeper() == .seconds(10))
        #expect(await clock.advanceToNextSleeper() == .seconds(10))
        let (seen, end) = await polls.value
        #expect(seen == ["1 going", "2 going", "3 maxCount"])
        #expect(end == .maxCount)
        #expect(clock.sleeperCount == 0)
    }

    @Test("The condition holding ends polling as conditionMet, even on the result that reaches maxCount")
    func endsWhenConditionHolds() async {
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url("http://api.test/job"); Using(Self.counting()); UseClock(clock)
            }
            .poll(every: .seconds(10), until: Self.isDone(after: 2), maxCount: 2))
        #expect(await clock.advanceToNextSleeper() == .seconds(10))
        let (seen, end) = await polls.value
        #expect(seen == ["1 going", "2 conditionMet"])
        #expect(end == .conditionMet)
    }

    @Test("maxDuration ends polling when the next request would start after it")
    func endsAtMaxDuration() async {
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url("http://api.test/job"); Using(Self.counting()); UseClock(clock)
            }
            .poll(every: .seconds(100), until: Self.isDone(after: 10), maxDuration: .seconds(250)))
        // Requests at 0, 100 and 200 s; a fourth would start at 300 s, after the 250 s.
        #expect(await clock.advanceToNextSleeper() == .seconds(100))
        #expect(await clock.advanceToNextSleeper() == .seconds(100))
        let (seen, end) = await polls.value
        #expect(seen == ["1 going", "2 going", "3 maxDuration"])
        #expect(end == .maxDuration)
        #expect(clock.now.offset == .seconds(200))
    }

    @Test("Cancelling the consuming task ends polling as cancelled")
    func endsWhenCancelled() async {
        let clock = TestClock()
        let polls = Self.collect(
            Request {
                Url("http://api.test/job"); Using(Self.counting()); UseClock(clock)
            }
            .poll(every: .seconds(30), maxCount: 10))
        #expect(await clock.advanceToNextSleeper() == .seconds(30))
        #expect(await clock.waitForSleepers(count: 1))  // the second result is in; the poller waits
        polls.cancel()
        let (seen, end) = await polls.value
        #expect(seen == ["1 going", "2 going"])
        #expect(end == .cancelled)
    }

    @Test("update(every:until:) stops when the condition holds, and its completion says so after the last handlers")
    func updateUntilCompletion() async {
        let clock = TestClock()
        let log = Log()
        let handle = Request {
            Url("http://api.test/job"); Using(Self.counting()); UseClock(clock)
        }
        .onJson { json in log.add("n \(json.n.int ?? 0)") }
        .update(every: 5, until: Self.isDone(after: 3)) { end in log.add("ended \(end)") }
        #expect(await clock.advanceToNextSleeper() == .seconds(5))
        #expect(await clock.advanceToNextSleeper() == .seconds(5))
        await handle.wait()
        #expect(log.entries == ["n 1", "n 2", "n 3", "ended conditionMet"])
        #expect(clock.sleeperCount == 0)
    }

    @Test("update(every:) with Durations ends at maxCount or maxDuration, and tells its completion")
    func updateLimitsCompletion() async {
        let clock = TestClock()
        let log = Log()
        let counted = Request {
            Url("http://api.test/a"); Using(Self.counting()); UseClock(clock)
        }
        .update(every: .seconds(1), maxCount: 2) { end in log.add("a \(end)") }
        #expect(await clock.advanceToNextSleeper() == .seconds(1))
        await counted.wait()
        let timed = Request {
            Url("http://api.test/b"); Using(Self.counting()); UseClock(clock)
        }
        .update(every: 60, maxDuration: 90) { end in log.add("b \(end)") }
        #expect(await clock.advanceToNextSleeper() == .seconds(60))
        await timed.wait()
        #expect(log.entries == ["a maxCount", "b maxDuration"])
    }

    @Test("Cancelling an update handle tells its completion cancelled; without one, nothing more runs")
    func updateCancelledCompletion() async {
        let clock = TestClock()
        let log = Log()
        let handle = Request {
            Url("http://api.test/job"); Using(Self.counting()); UseClock(clock)
        }
        .onJson { json in log.add("n \(json.n.int ?? 0)") }
        .update(every: .seconds(30), maxCount: 5) { end in log.add("ended \(end)") }
        #expect(await clock.waitForSleepers(count: 1))
        handle.cancel()
        await handle.wait()
        #expect(log.entries == ["n 1", "ended cancelled"])
    }
}
