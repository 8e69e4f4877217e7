import Foundation
import RequestKit

/// The way a body closure, running on a handler thread, reaches its connection on the event loop: each call
/// hands the loop its work and waits for the answer, so writes keep their order and a slow client holds back the
/// closure, not the loop.
///
/// ```swift
/// let delivered = channel.send(Data("tick\n".utf8))
/// let stillThere = channel.sleep(for: .milliseconds(100))
/// ```
final class ResponseChannel: Sendable {
    private let loop: EventLoop
    /// Queues bytes for the client on the loop, calling back once they are taken (`true`) or cannot be (`false`).
    private let deliver: @Sendable (Data, @escaping (Bool) -> Void) -> Void
    /// Shuts the connection down at once, from any thread.
    private let shutDown: @Sendable () -> Void
    /// Tells the connection, on the loop, that it was cut.
    private let wasCut: @Sendable () -> Void
    private let condition = NSCondition()
    // Safe: `isGone` and `pendingWrites` are only touched while holding `condition`.
    nonisolated(unsafe) private var isGone = false
    nonisolated(unsafe) private var pendingWrites = 0

    /// A channel to an HTTP/1.1 connection's response, whose bytes go on the wire as they are.
    convenience init(loop: EventLoop, connection: ServerConnection) {
        self.init(
            loop: loop, deliver: { data, done in connection.enqueue(data, done: done) },
            shutDown: { connection.shutDownSocket() }, wasCut: { connection.cut() })
    }

    /// A channel whose bytes `deliver` takes on the loop (an HTTP/2 stream frames them).
    init(
        loop: EventLoop, deliver: @escaping @Sendable (Data, @escaping (Bool) -> Void) -> Void,
        shutDown: @escaping @Sendable () -> Void, wasCut: @escaping @Sendable () -> Void
    ) {
        self.loop = loop
        self.deliver = deliver
        self.shutDown = shutDown
        self.wasCut = wasCut
    }

    /// Whether the client has gone away (or the connection was cut or the server stopped).
    var isPeerGone: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isGone
    }

    /// Marks the client gone and wakes a waiting closure; called on the loop.
    func markGone() {
        condition.lock()
        isGone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hands `data` to the connection and waits until the socket has taken all of it; `false` when the client
    /// went away first.
    func send(_ data: Data) -> Bool {
        condition.lock()
        if isGone {
            condition.unlock()
            return false
        }
        pendingWrites += 1
        condition.unlock()
        loop.execute { [self] in
            deliver(data) { [self] delivered in
                condition.lock()
                pendingWrites -= 1
                if !delivered { isGone = true }
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        defer { condition.unlock() }
        while pendingWrites > 0 && !isGone { condition.wait() }
        return !isGone
    }

    /// Waits for `duration`, returning early with `false` when the client goes away.
    func sleep(for duration: Duration) -> Bool {
        let deadline = Date(timeIntervalSinceNow: duration.timeInterval)
        condition.lock()
        defer { condition.unlock() }
        while !isGone {
            if !condition.wait(until: deadline) { return !isGone }
        }
        return false
    }

    /// Cuts the connection at once, to simulate a server that dies mid-response.
    func cut() {
        markGone()
        shutDown()
        loop.execute { [wasCut] in wasCut() }
    }
}
