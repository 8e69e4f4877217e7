import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Creates and resumes one URLSession task off the caller's thread, and lets a cancellation that comes first, or
/// at the same time, win.
///
/// In FoundationNetworking, creating a task and `resume()` wait (`sync`) for the one work queue that every
/// session's transfers share, and a transfer that floods it (a fast loopback body) can keep it busy for seconds.
/// Swift's cooperative pool has only as many threads as cores, so a few such waits on it would stall every task
/// in the process; the waits happen on ``queue`` instead, and the caller stays suspended.
///
/// ```swift
/// let start = TaskStart()
/// start.begin(session: session, request: urlRequest, register: { registry.register($0, …) },
///             resumed: { registry.resumed($0) }, cancelled: { registry.cancelSoon($0) })
/// // from a cancellation handler:
/// start.cancel { identifier in registry.cancelSoon(identifier) }
/// ```
final class TaskStart: @unchecked Sendable {
    // Safe: `identifier` and `isCancelled` are read and written only while holding `lock`.
    private let lock = NSLock()
    private var identifier: Int?
    private var isCancelled = false

    /// The serial queue that creates and resumes tasks; its waits never hold a cooperative thread.
    static let queue = DispatchQueue(label: "RequestKit.URLSessionTransport.starts")

    /// The task's identifier, once it exists.
    var startedIdentifier: Int? { lock.withLock { identifier } }

    /// On ``queue``: creates the task for `request`, hands it to `register`, then resumes it and calls `resumed`,
    /// unless the start was cancelled first; then `cancelled` gets its identifier instead.
    func begin(
        session: URLSession, request: URLRequest, register: @escaping @Sendable (URLSessionTask) -> Void,
        resumed: @escaping @Sendable (Int) -> Void, cancelled: @escaping @Sendable (Int) -> Void
    ) {
        Self.queue.async {
            let task = session.dataTask(with: request)
            register(task)
            let wasCancelled = self.lock.withLock { () -> Bool in
                self.identifier = task.taskIdentifier
                return self.isCancelled
            }
            if wasCancelled {
                cancelled(task.taskIdentifier)
            } else {
                task.resume()
                resumed(task.taskIdentifier)
            }
        }
    }

    /// Cancels the start: `cancelTask` gets the task's identifier when the task already exists; otherwise
    /// ``begin(session:request:register:resumed:cancelled:)`` cancels the task as soon as it has made it.
    func cancel(_ cancelTask: (Int) -> Void) {
        let started = lock.withLock { () -> Int? in
            isCancelled = true
            return identifier
        }
        if let started { cancelTask(started) }
    }
}
