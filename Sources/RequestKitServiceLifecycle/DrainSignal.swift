#if ServiceLifecycle
import Foundation

/// A one-time event that tasks wait for: ``ClientService``'s last call ending after a shutdown began.
final class DrainSignal: @unchecked Sendable {
    // Safe: `isSignalled` and `waiters` are only read and written holding `lock`.
    private let lock = NSLock()
    private var isSignalled = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Fires the event: every waiter resumes, and later ones do not wait. Firing again does nothing.
    func signal() {
        let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            guard !isSignalled else { return [] }
            isSignalled = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Returns once the event has fired.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isReady = lock.withLock {
                if !isSignalled { waiters.append(continuation) }
                return isSignalled
            }
            if isReady { continuation.resume() }
        }
    }
}
#endif
