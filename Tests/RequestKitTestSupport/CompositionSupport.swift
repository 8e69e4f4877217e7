import Foundation

/// A thread-safe counter for routes that answer differently on each call.
package final class CallCounter: @unchecked Sendable {
    // Safe: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count = 0

    package init() {}

    /// Adds one and returns the new count.
    package func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }

    /// The current count.
    package var value: Int { lock.withLock { count } }
}

/// A thread-safe gauge of work in flight, keeping its peak.
package final class InFlightGauge: @unchecked Sendable {
    // Safe: every access to `current` and `highest` holds `lock`.
    private let lock = NSLock()
    private var current = 0
    private var highest = 0

    package init() {}

    package func enter() {
        lock.withLock {
            current += 1; highest = max(highest, current)
        }
    }
    package func leave() { lock.withLock { current -= 1 } }
    package var peak: Int { lock.withLock { highest } }
}

/// A flag a test opens once, read by server routes on their own threads or by held responses on the server's loop.
package final class Gate: @unchecked Sendable {
    // Safe: every access to `opened` holds `lock`.
    private let lock = NSLock()
    private var opened = false

    package init() {}

    package func open() { lock.withLock { opened = true } }
    package var isOpen: Bool { lock.withLock { opened } }
}
