/// A step of an ``HTTP1Connection``'s loop: each entry point from readiness, a timer or another thread, run on the
/// loop's thread, or kept in order until the connection comes back when it is lent to an awaiting task
/// (``LoopOwnedConnection``).
///
/// ```swift
/// let step = HTTP1ConnectionStep.readiness(readable: true, writable: false)
/// ```
enum HTTP1ConnectionStep {
    /// Starts a request.
    case start(RequestJob)
    /// Cancels a request, when it is still the connection's.
    case cancel(RequestJob)
    /// Closes the idle connection the pool let go of.
    case closeIdle
    /// The socket was ready while the connection was lent: the loop, which stopped watching it then, watches it
    /// again for what the connection waits for, then handles the readiness.
    case readiness(readable: Bool, writable: Bool)
    /// Moves the current phase on.
    case drive
    /// Fails the exchange.
    case fail(any Error)
    /// Schedules the idle timeout's check.
    case scheduleTimeoutCheck(deadline: UInt64)
    /// Checks the idle timeout.
    case checkTimeout
    /// A streamed body's consumer asked for more (of the pump with that generation).
    case resumePump(generation: Int)
    /// A streamed body's consumer went away.
    case terminatePump(generation: Int)
}
