import Foundation

/// Lets a task that feeds a `ResponseBodyStream` wait until the consumer asks for more: `onDemand` opens the gate,
/// and an opening that comes before the wait is not lost.
final class DemandGate: Sendable {
    private struct State {
        var isOpen = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Closes the gate before a chunk is handed over.
    func close() {
        state.withLock { $0.isOpen = false }
    }

    /// Opens the gate, resuming the waiting task if there is one.
    func open() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isOpen = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the gate is open, or the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let isOpen = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if isOpen { continuation.resume() }
            }
        } onCancel: {
            open()
        }
    }
}
