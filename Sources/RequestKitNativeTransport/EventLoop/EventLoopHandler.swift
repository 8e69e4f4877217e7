/// An object an ``EventLoop`` tells when a descriptor it registered is ready.
///
/// ```swift
/// final class Printer: EventLoopHandler {
///     func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) { print(descriptor, readable) }
/// }
/// ```
package protocol EventLoopHandler: AnyObject {
    /// `descriptor` is readable (or the peer closed it) and/or writable; called on the loop's thread.
    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool)
}
