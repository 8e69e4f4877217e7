/// A step of an ``HTTP1Connection``'s loop: each entry point from readiness, a timer or another thread, run on the
/// loop's thread, or kept in order until the connection comes back when it is lent to an awaiting task.
///
/// ```swift
/// let step = HTTP1ConnectionStep.readiness(readable: true, writable: false, descriptor: 7)
/// ```
enum HTTP1ConnectionStep {
    /// Starts a request.
    case start(RequestJob)
    /// Cancels a request, when it is still the connection's.
    case cancel(RequestJob)
    /// Closes the idle connection the pool let go of.
    case closeIdle
    /// The socket is ready.
    case readiness(readable: Bool, writable: Bool, descriptor: Int32)
    /// Watches the socket again for the readiness the connection waits for: the loop stopped watching it when
    /// its readiness came while the connection was lent.
    case watchAgain
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
    /// Nothing of its own: the connection came back with steps the loop left, which run first.
    case takeUpDeferred
}
