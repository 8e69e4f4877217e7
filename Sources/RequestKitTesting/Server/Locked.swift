import Foundation

/// A value guarded by a lock, shared between the server's threads.
///
/// This is the only `@unchecked Sendable` type in the server. It is safe because the wrapped value is only ever
/// reached inside `withLock`, which holds `lock` for the whole access, so no two threads touch it at once.
///
/// ```swift
/// let counter = Locked(0)
/// counter.withLock { $0 += 1 }
/// ```
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// Wraps `value`.
    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
