import Foundation

/// The monotonic clock an ``EventLoop`` and everything on it read, in nanoseconds: the system's uptime clock, or
/// one a test moves by hand (``ManualLoopTime``), so that timeouts run in tests without waiting.
///
/// ```swift
/// let time = ManualLoopTime()
/// let clock = LoopClock.manual(time)
/// time.advance(by: 1_000_000_000)
/// print(clock.now())  // 1000000000
/// ```
package struct LoopClock: Sendable {
    private let manual: ManualLoopTime?

    /// The system's monotonic clock.
    package static let system = LoopClock(manual: nil)

    /// A clock that stands still until `time` is advanced.
    package static func manual(_ time: ManualLoopTime) -> LoopClock { LoopClock(manual: time) }

    private init(manual: ManualLoopTime?) { self.manual = manual }

    /// The current time in nanoseconds.
    @inline(__always)
    package func now() -> UInt64 {
        guard let manual else { return DispatchTime.now().uptimeNanoseconds }
        return manual.nanoseconds
    }

    /// Whether this is the system's clock.
    package var isSystem: Bool { manual == nil }

    /// The time `seconds` from now, clamped to a century (a negative or NaN duration is now).
    package func deadline(after seconds: Double) -> UInt64 {
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 3.15e9)
        return now() &+ UInt64(clamped * 1e9)
    }
}

/// The time of a ``LoopClock/manual(_:)`` clock: it starts at an arbitrary origin and moves only when told.
///
/// ```swift
/// let time = ManualLoopTime(start: 5_000)
/// time.advance(by: 1_000)
/// print(time.nanoseconds)  // 6000
/// ```
package final class ManualLoopTime: Sendable {
    private let word: AtomicWord

    /// A time starting at `start` nanoseconds.
    package init(start: UInt64 = 1_000_000_000) { word = AtomicWord(start) }

    /// The current time in nanoseconds.
    package var nanoseconds: UInt64 { word.load() }

    /// Moves the time on by `nanoseconds`.
    package func advance(by nanoseconds: UInt64) { word.add(nanoseconds) }
}
