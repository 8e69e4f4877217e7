import Foundation

/// Where an ``EventLoop`` learns which of its descriptors are ready: the system's readiness notification
/// (``ReadinessSelector``), or, in tests, a source that reports what scripted byte streams hold, so that a
/// connection runs its whole life on a loop the test turns by hand.
///
/// Only the loop's thread calls it, except ``wake()``, which any thread may call.
///
/// ```swift
/// try source.change(descriptor, from: [], to: .readable)
/// source.wait(timeout: 0) { descriptor, readable, writable in print(descriptor, readable, writable) }
/// ```
package protocol ReadinessSource: AnyObject {
    /// Changes what `descriptor` is watched for, from `old` to `new`; an empty interest stops watching it.
    ///
    /// - Throws: `POSIXError` when the system refuses the change.
    func change(_ descriptor: Int32, from old: LoopInterest, to new: LoopInterest) throws(POSIXError)

    /// Waits until a descriptor is ready, ``wake()`` is called, or `timeout` nanoseconds pass (forever when nil),
    /// then reports each ready descriptor to `ready`.
    func wait(timeout: UInt64?, _ ready: (_ descriptor: Int32, _ readable: Bool, _ writable: Bool) -> Void)

    /// Makes a waiting (or the next) ``wait(timeout:_:)`` return at once. Any thread may call it.
    func wake()
}
