import Foundation

/// What the system resolver needs from an event loop: watching its sockets, one timer, and running work on the
/// loop's thread. Everything but ``execute(_:)`` and ``isCurrent`` is called on the loop's thread.
///
/// ```swift
/// loop.execute {
///     try? loop.watch(descriptor, readable: true, writable: false) { readable, writable in process(readable) }
///     _ = loop.schedule(at: loop.now() + 1_000_000_000) { print("a second later, on the loop") }
/// }
/// ```
package protocol ResolverLoop: AnyObject, Sendable {
    /// A timer the loop made, for cancelling it.
    associatedtype Timer: AnyObject

    /// Monotonic nanoseconds, the clock of ``schedule(at:_:)``.
    func now() -> UInt64

    /// Whether the caller runs on the loop's thread.
    var isCurrent: Bool { get }

    /// Runs `task` on the loop's thread; any thread may call it.
    func execute(_ task: @escaping () -> Void)

    /// Starts telling `ready` when `descriptor`, not watched yet, becomes readable or writable, as asked.
    ///
    /// - Throws: `POSIXError` when the system refuses to watch it.
    func watch(
        _ descriptor: Int32, readable: Bool, writable: Bool,
        ready: @escaping (_ readable: Bool, _ writable: Bool) -> Void
    ) throws(POSIXError)

    /// Changes what a watched descriptor is watched for.
    ///
    /// - Throws: `POSIXError` when the system refuses the change.
    func rewatch(_ descriptor: Int32, readable: Bool, writable: Bool) throws(POSIXError)

    /// Stops watching `descriptor` and forgets its handler; called before it is closed.
    func stopWatching(_ descriptor: Int32)

    /// Runs `action` on the loop at `deadline` (``now()`` nanoseconds) unless cancelled first.
    func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> Timer

    /// Cancels a timer that has not fired.
    func cancel(_ timer: Timer)
}
