/// The start and end of one phase of an attempt, on the continuous clock.
extension RequestMetrics {
    /// One phase of an attempt: when it started and when it ended.
    ///
    /// ```swift
    /// if let connect = attempt.connect { print("connecting took \(connect.duration)") }
    /// ```
    public struct Interval: Sendable, Hashable {
        /// When the phase started.
        public var start: ContinuousClock.Instant
        /// When the phase ended.
        public var end: ContinuousClock.Instant

        /// Creates an interval.
        ///
        /// ```swift
        /// let now = ContinuousClock.now
        /// let phase = RequestMetrics.Interval(start: now, end: now)
        /// ```
        public init(start: ContinuousClock.Instant, end: ContinuousClock.Instant) {
            self.start = start
            self.end = end
        }

        /// How long the phase took.
        ///
        /// ```swift
        /// let milliseconds = Double(phase.duration.components.attoseconds) / 1e15
        /// ```
        public var duration: Duration { start.duration(to: end) }
    }
}
