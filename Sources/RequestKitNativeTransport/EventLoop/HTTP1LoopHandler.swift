/// An object an ``HTTP1EventLoop`` tells when a descriptor it registered is ready.
///
/// ```swift
/// final class Printer: HTTP1LoopHandler {
///     func descriptorIsReady(readable: Bool, writable: Bool) { print(readable, writable) }
/// }
/// ```
package protocol HTTP1LoopHandler: AnyObject {
    /// The descriptor is readable (or the peer closed it) and/or writable; called on the loop's thread.
    func descriptorIsReady(readable: Bool, writable: Bool)
}
