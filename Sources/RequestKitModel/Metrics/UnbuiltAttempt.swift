/// An attempt a transport recorded, not yet made into a ``RequestMetrics/Attempt``
/// (``RequestMetrics/init(building:)``).
///
/// ```swift
/// final class Recorded: UnbuiltAttempt {
///     var attempt: RequestMetrics.Attempt { RequestMetrics.Attempt(url: nil, start: .now) }
/// }
/// ```
package protocol UnbuiltAttempt: AnyObject, Sendable {
    /// The attempt, built from what was recorded.
    var attempt: RequestMetrics.Attempt { get }
}
