/// The time source of everything in RequestKit that waits: retry backoff and `Retry-After`, polling and
/// `update(every:)`, Server-Sent Events reconnection delays, and the total deadline of `Timeout(_, for: .resource)`.
///
/// The default is ``continuous``, the system's continuous clock. Tests swap in a clock they drive by hand, such as
/// `TestClock` from RequestKitTesting, with ``UseClock`` on a request or ``Client/Configuration/clock`` on a
/// client, so retries and polling run without real waits:
///
/// ```swift
/// let clock = TestClock()
/// let task = Task {
///     try await Request {
///         Url(server.url("/sequence/503,200"))
///         Retry(.exponential(maxAttempts: 2, baseDelay: 5, jitter: false))
///         UseClock(clock)
///     }.send()
/// }
/// await clock.waitForSleepers(count: 1)   // the first attempt failed; the retry waits 5 s
/// await clock.advance(by: .seconds(5))
/// let response = try await task.value     // the second attempt's 200
/// ```
///
/// Any `Clock` whose durations are `Duration` can be wrapped. Waits are clamped: a negative or NaN wait is none,
/// and anything longer than ``maximumWait`` (from a user or a server, such as `Retry-After: 20000000000`) waits
/// that long instead of overflowing.
public struct RequestClock: Sendable {
    private let reading: @Sendable () -> Duration
    private let sleeping: @Sendable (Duration) async throws -> Void
    /// Whether this wraps the system's `ContinuousClock`: readers that want a date then read the system's time
    /// directly (turning a `Duration` into seconds takes a 128-bit division).
    package let isSystem: Bool

    /// Wraps a clock.
    ///
    /// ```swift
    /// let clock = RequestClock(ContinuousClock())
    /// ```
    /// - Parameter clock: The clock to read and to sleep on.
    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        reading = { origin.duration(to: clock.now) }
        sleeping = { duration in try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil) }
        isSystem = C.self == ContinuousClock.self
    }

    /// The system's continuous clock: the default.
    ///
    /// ```swift
    /// configuration.clock = .continuous
    /// ```
    public static let continuous = RequestClock(ContinuousClock())

    /// The longest single wait, about 31 years: longer waits are clamped to it.
    ///
    /// ```swift
    /// #expect(RequestClock.maximumWait == .seconds(1_000_000_000))
    /// ```
    public static let maximumWait = Duration.seconds(1_000_000_000)

    /// The time on this clock, measured from when the `RequestClock` was made; only differences between two
    /// readings mean something.
    ///
    /// ```swift
    /// let start = clock.now
    /// // …
    /// let elapsed = clock.now - start
    /// ```
    public var now: Duration { reading() }

    /// Waits for `duration`, clamped to between zero and ``maximumWait``.
    ///
    /// ```swift
    /// try await RequestClock.continuous.sleep(for: .milliseconds(10))
    /// ```
    /// - Parameter duration: How long to wait.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func sleep(for duration: Duration) async throws {
        let wait = Self.clamped(duration)
        guard wait > .zero else { return try Task.checkCancellation() }
        try await sleeping(wait)
    }

    /// Waits for `seconds`, clamped like ``sleep(for:)``; infinity waits ``maximumWait``.
    ///
    /// ```swift
    /// try await RequestClock.continuous.sleep(seconds: 0.25)
    /// ```
    /// - Parameter seconds: How long to wait, in seconds.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    public func sleep(seconds: Double) async throws {
        try await sleep(for: Self.duration(seconds: seconds))
    }

    /// `seconds` as a `Duration` that never traps: NaN and negatives are zero, anything beyond ``maximumWait``
    /// (infinity included) is ``maximumWait``.
    ///
    /// ```swift
    /// #expect(RequestClock.duration(seconds: .infinity) == RequestClock.maximumWait)
    /// ```
    /// - Parameter seconds: A number of seconds from a user or a server.
    /// - Returns: The duration.
    public static func duration(seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }
        guard seconds < Double(maximumWait.components.seconds) else { return maximumWait }
        return .seconds(seconds)
    }

    /// `duration` clamped to between zero and ``maximumWait``.
    static func clamped(_ duration: Duration) -> Duration {
        min(max(duration, .zero), maximumWait)
    }
}
