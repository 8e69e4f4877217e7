import Foundation

/// A thread-safe list of strings for callback tests.
package final class Log: @unchecked Sendable {
    // Safe: every access to `items` holds `lock`.
    private let lock = NSLock()
    private var items: [String] = []

    package init() {}

    package func add(_ entry: String) { lock.withLock { items.append(entry) } }
    package var entries: [String] { lock.withLock { items } }
}
