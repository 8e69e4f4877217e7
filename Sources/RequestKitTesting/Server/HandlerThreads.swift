import Foundation
import RequestKit

/// The threads on which route handlers and streamed or raw body closures run, since they may block or sleep and
/// the server's event loops must not: a small set shared by every ``TestServer`` in the process, started when
/// work waits and no thread is free, ending after a few idle seconds.
///
/// ```swift
/// HandlerThreads.shared.run { print("may block here") }
/// ```
final class HandlerThreads: Sendable {
    /// The most threads at once; work beyond them waits for one to finish.
    static let limit = 32
    /// How long a thread with nothing to do waits for work before it ends.
    static let idleLifetime: TimeInterval = 5

    /// The threads of the process.
    static let shared = HandlerThreads()

    private struct State: Sendable {
        var queue: [@Sendable () -> Void] = []
        var threads = 0
        var idle = 0
    }

    private let condition = NSCondition()
    // Safe: `state` is only touched while holding `condition`.
    nonisolated(unsafe) private var state = State()

    /// Runs `work` on a handler thread, at once when one is free or can be started, else after the work before it.
    func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        state.queue.append(work)
        let startsThread = state.queue.count > state.idle && state.threads < Self.limit
        if startsThread { state.threads += 1 }
        condition.signal()
        condition.unlock()
        guard startsThread else { return }
        do {
            try DetachedThread.start(name: "RequestKitTesting.TestServer.handler") { [self] in serve() }
        } catch {
            condition.lock()
            state.threads -= 1
            let orphaned = state.threads == 0 ? state.queue : []
            if state.threads == 0 { state.queue = [] }
            condition.unlock()
            // The system refused a thread and none is left to take the work: run it here rather than lose it.
            for work in orphaned { work() }
        }
    }

    private func serve() {
        condition.lock()
        while true {
            if !state.queue.isEmpty {
                let work = state.queue.removeFirst()
                condition.unlock()
                work()
                condition.lock()
                continue
            }
            state.idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: Self.idleLifetime))
            state.idle -= 1
            if !signalled && state.queue.isEmpty {
                state.threads -= 1
                condition.unlock()
                return
            }
        }
    }
}
