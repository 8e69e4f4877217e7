import Testing

@testable import RequestKitNativeTransport

/// When a request sent inline looks for its response itself: the decision, answer by answer, with no clock.
@Suite("Prompt polling")
struct HTTP1PromptPollingTests {
    static let window: UInt64 = 50_000
    static let prompt: UInt64 = 10_000
    static let late: UInt64 = 2_000_000

    @Test("A server that answers within the window is looked for on every request")
    func promptServer() {
        var polling = HTTP1PromptPolling(window: Self.window)
        for _ in 0..<40 {
            let looks = polling.startsPolling()
            #expect(looks)
            polling.answerArrived(after: Self.prompt)
        }
        #expect(polling.lateAnswers == 0)
    }

    @Test("One late answer changes nothing; after two in a row only one request in 16 looks")
    func lateServer() {
        var polling = HTTP1PromptPolling(window: Self.window)
        polling.answerArrived(after: Self.late)
        let looksAfterOne = polling.startsPolling()
        #expect(looksAfterOne)
        polling.answerArrived(after: Self.late)
        #expect(polling.lateAnswers == 2)
        let looks = (1...32).map { _ in polling.startsPolling() }
        #expect(looks.indices.filter { looks[$0] } == [15, 31])
    }

    @Test("A prompt answer after late ones makes every request look again")
    func recovers() {
        var polling = HTTP1PromptPolling(window: Self.window)
        polling.answerArrived(after: Self.late)
        polling.answerArrived(after: Self.late)
        let looksWhileLate = polling.startsPolling()
        #expect(!looksWhileLate)
        polling.answerArrived(after: Self.window)
        #expect(polling.lateAnswers == 0)
        let looksAgain = [polling.startsPolling(), polling.startsPolling()]
        #expect(looksAgain == [true, true])
    }

    @Test("A window of 0 never looks")
    func noWindow() {
        var polling = HTTP1PromptPolling(window: 0)
        let first = polling.startsPolling()
        polling.answerArrived(after: 0)
        let second = polling.startsPolling()
        #expect([first, second] == [false, false])
    }
}
