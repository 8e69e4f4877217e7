import Foundation

/// The background refreshes of a cache (`stale-while-revalidate`): at most one per key at a time, each in a task of
/// its own, which ``waitForAll()`` awaits.
package final class BackgroundRefreshes: @unchecked Sendable {
    // Safe: every access to the mutable state below holds `lock`.
    private let lock = NSLock()
    private var keys: Set<String> = []
    private var tasks: [Int: Task<Void, Never>] = [:]
    private var nextID = 0

    /// Runs `operation` in a new task unless a refresh of `key` is already running.
    package func start(_ key: String, _ operation: @escaping @Sendable () async -> Void) {
        let id: Int? = lock.withLock {
            guard keys.insert(key).inserted else { return nil }
            defer { nextID += 1 }
            return nextID
        }
        guard let id else { return }
        let task = Task {
            await operation()
            _ = lock.withLock { keys.remove(key) }
        }
        lock.withLock { tasks[id] = task }
    }

    /// Waits until every refresh started so far, and every one they start, has finished.
    func waitForAll() async {
        while true {
            let running = lock.withLock { tasks }
            guard !running.isEmpty else { return }
            for task in running.values { await task.value }
            lock.withLock { for id in running.keys { tasks[id] = nil } }
        }
    }
}
