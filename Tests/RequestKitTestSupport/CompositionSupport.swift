import Foundation

/// A thread-safe counter for routes that answer differently on each call.
final class CallCounter: @unchecked Sendable {
    // Safe: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Adds one and returns the new count.
    func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }

    /// The current count.
    var value: Int { lock.withLock { count } }
}

/// A thread-safe gauge of work in flight, keeping its peak.
final class InFlightGauge: @unchecked Sendable {
    // Safe: every access to `current` and `highest` holds `lock`.
    private let lock = NSLock()
    private var current = 0
    private var highest = 0

    func enter() {
        lock.withLock {
            current += 1; highest = max(highest, current)
        }
    }
    func leave() { lock.withLock { current -= 1 } }
    var peak: Int { lock.withLock { highest } }
}

/// A flag a test opens once, read by server routes on their own threads or by held responses on the server's loop.
final class Gate: @unchecked Sendable {
    // Safe: every access to `opened` holds `lock`.
    private let lock = NSLock()
    private var opened = false

    func open() { lock.withLock { opened = true } }
    var isOpen: Bool { lock.withLock { opened } }
}
