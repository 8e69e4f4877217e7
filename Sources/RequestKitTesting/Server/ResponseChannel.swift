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
    private let loop: HTTP1EventLoop
    private let connection: ServerConnection
    private let condition = NSCondition()
    // Safe: `isGone` and `pendingWrites` are only touched while holding `condition`.
    nonisolated(unsafe) private var isGone = false
    nonisolated(unsafe) private var pendingWrites = 0

    init(loop: HTTP1EventLoop, connection: ServerConnection) {
        self.loop = loop
        self.connection = connection
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
        loop.execute { [connection] in
            connection.enqueue(data) { [self] delivered in
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
        connection.socket.shutdownBoth()
        loop.execute { [connection] in connection.cut() }
    }
}
