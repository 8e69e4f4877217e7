/// Whether a request sent inline on an idle connection looks for its response itself, from the awaiting task, before
/// the loop reads it: yes while the server answers within the window; after two late answers in a row, only every
/// ``recheckInterval``-th request, until a prompt answer makes it look every time again.
///
/// ```swift
/// var polling = HTTP1PromptPolling(window: 50_000)
/// print(polling.startsPolling())                  // true
/// polling.answerArrived(after: 2_000_000)         // late
/// polling.answerArrived(after: 2_000_000)         // late again
/// print(polling.startsPolling())                  // false: 1 of 16
/// ```
struct HTTP1PromptPolling {
    /// How often a connection whose server answered late twice in a row looks all the same.
    static let recheckInterval: UInt8 = 16

    /// How long, in nanoseconds, a request looks for its response (0: never).
    let window: UInt64
    /// How many responses in a row came later than ``window`` after their request (up to 2).
    private(set) var lateAnswers: UInt8 = 0
    /// Requests sent without looking since looking stopped.
    private var unlookedCount: UInt8 = 0

    /// Prompt polling with a window of `window` nanoseconds.
    init(window: UInt64) {
        self.window = window
    }

    /// Whether the request sent now looks for its response, counting it.
    mutating func startsPolling() -> Bool {
        guard window > 0 else { return false }
        if lateAnswers >= 2 {
            unlookedCount += 1
            guard unlookedCount >= Self.recheckInterval else { return false }
        }
        unlookedCount = 0
        return true
    }

    /// A response head arrived `elapsed` nanoseconds after its request was written whole.
    mutating func answerArrived(after elapsed: UInt64) {
        lateAnswers = elapsed <= window ? 0 : min(lateAnswers + 1, 2)
    }
}
