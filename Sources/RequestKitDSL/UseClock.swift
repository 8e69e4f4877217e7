import RequestKitModel

/// Sets the clock a request waits on: its retry delays, its polling interval, its event-stream reconnection delay
/// and its total deadline.
///
/// Use it in tests with `TestClock` from RequestKitTesting to run retries and polling without real waits:
///
/// ```swift
/// let clock = TestClock()
/// let polls = Request {
///     Url(server.url("/anything"))
///     UseClock(clock)
/// }.poll(every: .seconds(30), maxCount: 2)
/// ```
public struct UseClock: RequestComponent {
    /// The clock.
    public let clock: RequestClock

    /// Waits on `clock`.
    ///
    /// ```swift
    /// UseClock(.continuous)
    /// ```
    /// - Parameter clock: The clock to wait on.
    public init(_ clock: RequestClock) { self.clock = clock }

    /// Waits on `clock`, any clock measured in `Duration`.
    ///
    /// ```swift
    /// UseClock(ContinuousClock())
    /// ```
    /// - Parameter clock: The clock to wait on.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration { self.clock = RequestClock(clock) }

    public func apply(to parts: inout RequestParts) {
        parts[option: RequestClockKey.self] = clock
    }
}

package enum RequestClockKey: RequestOptionKey {
    package static let defaultValue = RequestClock.continuous
}

extension RequestParts {
    /// The clock this request waits on.
    package var clock: RequestClock { self[option: RequestClockKey.self] }
}
