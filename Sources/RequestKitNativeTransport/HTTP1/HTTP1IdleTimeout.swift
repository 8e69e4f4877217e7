/// The idle timeout of a connection's request: it fails once no byte has moved for its length, counted from the
/// latest activity (a byte read, or a body's write that had waited for room), and is checked by one loop timer at a
/// time.
///
/// ```swift
/// var timeout = HTTP1IdleTimeout()
/// let deadline = timeout.arm(3, since: submitted, keepingActivity: false)   // submitted + 3 s
/// timeout.lastActivity = now                                               // a byte arrived
/// print(timeout.deadline == now + 3_000_000_000)                           // true
/// ```
struct HTTP1IdleTimeout {
    /// The timeout's length in nanoseconds; nil when none is armed.
    var nanoseconds: UInt64?
    /// When a byte last moved for the request, in loop-clock nanoseconds.
    var lastActivity: UInt64 = 0
    /// The pending check, if any.
    var timer: LoopTimer?
    /// The deadline of ``timer`` while it is pending: a later deadline needs no new timer.
    var timerDeadline: UInt64?

    /// When the request fails unless a byte moves first.
    var deadline: UInt64? { nanoseconds.map { lastActivity &+ $0 } }

    /// Arms a timeout of `seconds` (none when it is not positive and finite), counting from `since` unless
    /// `keepingActivity` and one is armed already. Returns the deadline.
    mutating func arm(_ seconds: Double, since: UInt64, keepingActivity: Bool) -> UInt64? {
        guard seconds > 0, seconds.isFinite, seconds < 1e8 else {
            nanoseconds = nil
            return nil
        }
        if !keepingActivity || nanoseconds == nil { lastActivity = since }
        nanoseconds = UInt64(seconds * 1e9)
        return deadline
    }
}
