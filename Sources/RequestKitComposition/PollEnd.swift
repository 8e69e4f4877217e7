/// How polling ended: ``PollSequence/Iterator/end`` once a ``PollSequence`` is over, and what the completion
/// handler of `update(every:)` receives.
///
/// ```swift
/// var polling = job.poll(every: .seconds(5), maxCount: 60).makeAsyncIterator()
/// while let result = await polling.next() { print(result) }
/// switch polling.end {
/// case .conditionMet, nil: break
/// case .maxCount, .maxDuration: print("gave up")
/// case .cancelled: print("stopped")
/// }
/// ```
public enum PollEnd: Sendable, Hashable {
    /// The `until` condition held for the last response.
    case conditionMet
    /// `maxCount` results came.
    case maxCount
    /// The next request would have started later than `maxDuration` after the first.
    case maxDuration
    /// The consuming task, or the handle of `update(every:)`, was cancelled.
    case cancelled
}
