import Foundation
import RequestKit

/// Accepts a ``TestServer``'s connections on one of the shared loops, as the listening socket becomes readable,
/// and spreads them over the loops.
///
/// Everything but construction happens on ``loop``.
///
/// ```swift
/// let acceptor = Acceptor(core: core, loop: loops.next(), loops: loops)
/// acceptor.loop.execute { acceptor.start() }
/// ```
final class Acceptor: EventLoopHandler, @unchecked Sendable {
    // Safe: `isClosed` and `backoff` are only touched on `loop`'s thread.
    let loop: EventLoop
    private let core: ServerCore
    private let loops: ServerLoops
    private var isClosed = false
    private var backoff: LoopTimer?

    init(core: ServerCore, loop: EventLoop, loops: ServerLoops) {
        self.core = core
        self.loop = loop
        self.loops = loops
    }

    /// Starts watching the listening socket.
    func start() {
        guard !core.isStopped else { return stopAccepting() }
        do {
            try loop.register(core.listener.rawValue, interest: [.readable], handler: self)
        } catch {
            stopAccepting()
        }
    }

    func descriptorIsReady(_ descriptor: Int32, readable: Bool, writable: Bool) {
        guard !isClosed else { return }
        if core.isStopped { return stopAccepting() }
        for _ in 0..<64 {
            guard let socket = core.listener.acceptConnection() else {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK { return }
                if code == EINTR || code == ECONNABORTED { continue }
                // Out of descriptors or a transient failure: pause briefly instead of spinning.
                try? loop.setInterest([], for: core.listener.rawValue)
                backoff = loop.schedule(after: 0.01) { [self] in
                    backoff = nil
                    guard !isClosed else { return }
                    try? loop.setInterest([.readable], for: core.listener.rawValue)
                }
                return
            }
            core.accepted(socket, on: loops.next())
        }
    }

    /// Stops accepting and closes the listening socket.
    func stopAccepting() {
        guard !isClosed else { return }
        isClosed = true
        if let backoff { loop.cancel(backoff) }
        loop.deregister(core.listener.rawValue)
        core.closeListener()
        core.listenerClosed()
    }
}
