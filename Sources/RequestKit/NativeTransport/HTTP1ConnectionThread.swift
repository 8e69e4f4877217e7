import Foundation

/// A thread of its own that runs one connection's blocking jobs, one after another.
///
/// A blocking read must never hold a thread that other work needs. Dispatch's queues share one capped pool of
/// threads with Swift's cooperative executor on Linux, so hundreds of connections blocked on slow servers could
/// starve every task in the process; a connection's own thread cannot. It sleeps while the connection is idle and
/// ends when the connection is released.
///
/// ```swift
/// let worker = HTTP1ConnectionThread()
/// worker.async { print("runs on the connection's thread") }
/// worker.stop()
/// ```
final class HTTP1ConnectionThread: @unchecked Sendable {
    // Safe: `jobs` and `isStopping` are read and written only while holding `condition`.
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []
    private var isStopping = false

    /// Starts the thread.
    init() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "RequestKit.HTTP1Connection"
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Runs `job` on the thread after the jobs already given.
    func async(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs already given have run.
    func stop() {
        condition.lock()
        isStopping = true
        condition.signal()
        condition.unlock()
    }

    private func runJobs() {
        while true {
            condition.lock()
            while jobs.isEmpty && !isStopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
