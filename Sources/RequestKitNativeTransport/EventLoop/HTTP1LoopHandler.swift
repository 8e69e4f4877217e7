/// An object an ``HTTP1EventLoop`` tells when a descriptor it registered is ready.
///
/// ```swift
/// final class Printer: HTTP1LoopHandler {
///     func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) { print(descriptor, readable) }
/// }
/// ```
package protocol HTTP1LoopHandler: AnyObject {
    /// `descriptor` is readable (or the peer closed it) and/or writable; called on the loop's thread.
    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool)
}
