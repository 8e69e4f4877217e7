import Dispatch

/// Runs handlers on the queue a caller chose, or on the current task when there is none.
enum HandlerQueue {
    /// Runs `work` on `queue` and waits for it, or runs it right here when `queue` is nil.
    static func perform<T: Sendable>(on queue: DispatchQueue?, _ work: @escaping @Sendable () -> T) async -> T {
        guard let queue else { return work() }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
