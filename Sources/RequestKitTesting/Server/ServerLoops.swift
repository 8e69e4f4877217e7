import Foundation
import RequestKit

/// The event loop threads every ``TestServer`` in the process shares: listening sockets and connections are
/// spread over them, so the server's thread count does not grow with its connections.
///
/// ```swift
/// let loop = try ServerLoops.shared().next()
/// loop.execute { print("on a server loop") }
/// ```
final class ServerLoops: Sendable {
    /// How many loops serve every test server of the process.
    static let count = 2

    private let loops: [EventLoop]
    private let counter = Locked(0)

    private init() throws(POSIXError) {
        var loops: [EventLoop] = []
        for index in 0..<Self.count {
            loops.append(try EventLoop(name: "RequestKitTesting.TestServer.loop.\(index)"))
        }
        self.loops = loops
    }

    private static let lock = NSLock()
    // Safe: `instance` is only touched while holding `lock`.
    nonisolated(unsafe) private static var instance: ServerLoops?

    /// The shared loops, started on first use.
    ///
    /// - Throws: `POSIXError` when a loop cannot open its selector or start its thread.
    static func shared() throws(POSIXError) -> ServerLoops {
        lock.lock()
        defer { lock.unlock() }
        if let instance { return instance }
        let loops = try ServerLoops()
        instance = loops
        return loops
    }

    /// The loop for the next listener or connection, in turn.
    func next() -> EventLoop {
        let index = counter.withLock { value in
            defer { value &+= 1 }
            return value
        }
        return loops[(index & Int.max) % loops.count]
    }
}
