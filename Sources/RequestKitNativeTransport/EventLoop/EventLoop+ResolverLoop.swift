import Foundation
import RequestKitConnect

/// The native transport's loop runs the system resolver's sockets and timers (``ResolverLoop``); its `now()`,
/// `isCurrent`, `execute(_:)`, `schedule(at:_:)` and `cancel(_:)` are the loop's own.
extension EventLoop: ResolverLoop {
    package func watch(
        _ descriptor: Int32, readable: Bool, writable: Bool,
        ready: @escaping (_ readable: Bool, _ writable: Bool) -> Void
    ) throws(POSIXError) {
        try register(
            descriptor, interest: Self.interest(readable: readable, writable: writable),
            handler: ReadinessCallback(ready))
    }

    package func rewatch(_ descriptor: Int32, readable: Bool, writable: Bool) throws(POSIXError) {
        try setInterest(Self.interest(readable: readable, writable: writable), for: descriptor)
    }

    package func stopWatching(_ descriptor: Int32) {
        deregister(descriptor)
    }

    private static func interest(readable: Bool, writable: Bool) -> LoopInterest {
        var interest: LoopInterest = []
        if readable { interest.insert(.readable) }
        if writable { interest.insert(.writable) }
        return interest
    }
}

/// A readiness handler that calls a closure, for descriptors watched through ``ResolverLoop``.
private final class ReadinessCallback: EventLoopHandler {
    let ready: (_ readable: Bool, _ writable: Bool) -> Void

    init(_ ready: @escaping (_ readable: Bool, _ writable: Bool) -> Void) {
        self.ready = ready
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        ready(readable, writable)
    }
}
