/// When an idle HTTP/2 connection checks that its server is still there: a `PING` once the connection has been idle
/// for the interval, and again every interval while it stays idle and the server answers; a `PING` still unanswered
/// when the next one is due means the server is gone, and the connection closes before a request relies on it.
///
/// Events in, actions out; ``HTTP2Connection`` schedules the timer and sends the `PING` as told.
///
/// ```swift
/// var liveness = HTTP2Liveness(interval: 30 * 1_000_000_000)
/// liveness.becameIdle(at: now)                    // .wait(until: now + 30 s)
/// liveness.timerFired(at: later, isIdle: true)    // .sendPing(thenWaitUntil: later + 30 s)
/// ```
struct HTTP2Liveness: Equatable, Sendable {
    /// What the connection does next.
    enum Action: Equatable, Sendable {
        /// Nothing changes.
        case none
        /// Sets the timer to fire at this instant (replacing any set before).
        case wait(until: UInt64)
        /// Sends a `PING`, then sets the timer for the wait for its answer.
        case sendPing(thenWaitUntil: UInt64)
        /// Stops the timer: the connection is busy.
        case stopTimer
        /// The server did not answer: the connection closes and leaves the pool.
        case close
    }

    /// How long the connection stays idle before a `PING`, in the loop's nanoseconds.
    let interval: UInt64
    /// Whether a `PING` waits for its answer.
    private(set) var isAwaitingPing = false
    /// When the timer fires, if it is set.
    private(set) var deadline: UInt64?

    /// Checks every `interval` nanoseconds of idleness.
    init(interval: UInt64) {
        self.interval = interval
    }

    /// The connection has no stream open and no request waiting, at `now`.
    mutating func becameIdle(at now: UInt64) -> Action {
        guard deadline == nil else { return .none }
        return wait(from: now)
    }

    /// A stream started: while the server answers there is nothing to check (the request's own timeouts hold).
    mutating func becameBusy() -> Action {
        guard deadline != nil else { return .none }
        deadline = nil
        return .stopTimer
    }

    /// The timer fired at `now`; `isIdle` says whether the connection still has nothing to do.
    mutating func timerFired(at now: UInt64, isIdle: Bool) -> Action {
        deadline = nil
        guard isIdle else { return .none }
        if isAwaitingPing { return .close }
        isAwaitingPing = true
        let next = now &+ interval
        deadline = next
        return .sendPing(thenWaitUntil: next)
    }

    /// The server answered the `PING` at `now`: the next check is one interval later, if the connection is still idle.
    mutating func pingAnswered(at now: UInt64, isIdle: Bool) -> Action {
        guard isAwaitingPing else { return .none }
        isAwaitingPing = false
        guard isIdle else {
            deadline = nil
            return .stopTimer
        }
        return wait(from: now)
    }

    private mutating func wait(from now: UInt64) -> Action {
        let next = now &+ interval
        deadline = next
        return .wait(until: next)
    }
}
