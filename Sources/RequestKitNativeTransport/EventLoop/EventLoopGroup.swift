import Foundation

/// A fixed set of ``EventLoop`` threads that connections are spread over, one after another.
///
/// Transports asking for the same number of loops share one group, made on first use and kept for the life of the
/// process, so that making many transports never makes many threads.
///
/// ```swift
/// let group = try EventLoopGroup.shared(loops: 1)
/// let loop = group.next()
/// ```
final class EventLoopGroup: Sendable {
    /// The loops.
    let loops: [EventLoop]
    /// The clock the loops read (the first loop's: a group's loops share one).
    let clock: LoopClock
    private let counter = RoundRobin()

    private static let lock = NSLock()
    nonisolated(unsafe) private static var groups: [Int: EventLoopGroup] = [:]

    private init(count: Int) throws(POSIXError) {
        var loops: [EventLoop] = []
        for index in 0..<count {
            loops.append(try EventLoop(name: "RequestKit.EventLoop.\(index)"))
        }
        self.loops = loops
        clock = .system
    }

    /// A group of loops made elsewhere (loops a test turns by hand), which share `loops[0]`'s clock.
    init(loops: [EventLoop]) {
        precondition(!loops.isEmpty, "an event loop group needs a loop")
        self.loops = loops
        clock = loops.first?.clock ?? .system
    }

    /// The shared group of `count` loops (clamped to 1...64), started on first use.
    ///
    /// - Throws: `POSIXError` when a loop cannot open its selector.
    static func shared(loops count: Int) throws(POSIXError) -> EventLoopGroup {
        let count = min(max(count, 1), 64)
        // Safe: `groups` is only touched while holding `lock`.
        lock.lock()
        defer { lock.unlock() }
        if let group = groups[count] { return group }
        let group = try EventLoopGroup(count: count)
        groups[count] = group
        return group
    }

    /// The loop for the next new connection.
    func next() -> EventLoop {
        loops.count == 1 ? loops[0] : loops[counter.next() % loops.count]
    }
}

/// A counter shared between threads.
final class RoundRobin: @unchecked Sendable {
    // Safe: `value` is only touched while holding `lock`.
    private let lock = NSLock()
    private var value = 0

    /// The next value, starting at 0.
    func next() -> Int {
        lock.withLock {
            defer { value &+= 1 }
            return value & Int.max
        }
    }
}
