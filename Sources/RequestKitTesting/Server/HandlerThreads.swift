import Foundation
import RequestKit

/// The threads on which route handlers and streamed or raw body closures run, since they may block or sleep and
/// the server's event loops must not: a small set shared by every ``TestServer`` in the process, started when
/// work waits and no thread is free, ending after a few idle seconds.
///
/// Up to ``usualLimit`` threads start at once. Beyond it, work waits for a thread to finish; work that has waited
/// ``patience`` (every thread is held by a handler that blocks, perhaps one waiting for the very work that waits)
/// gets a thread of its own, up to ``limit``.
///
/// ```swift
/// HandlerThreads.shared.run { print("may block here") }
/// ```
final class HandlerThreads: Sendable {
    /// The threads started as soon as work waits.
    static let usualLimit = 8
    /// The most threads at once.
    static let limit = 32
    /// How long work waits, with every thread busy, before one more thread starts for it.
    static let patience: Duration = .seconds(1)
    /// How long a thread with nothing to do waits for work before it ends.
    static let idleLifetime: TimeInterval = 5

    /// The threads of the process.
    static let shared = HandlerThreads()

    private struct Waiting {
        let work: @Sendable () -> Void
        let since: ContinuousClock.Instant
    }

    private struct State {
        var queue: [Waiting] = []
        var threads = 0
        var idle = 0
        var isWatching = false
    }

    private let condition = NSCondition()
    // Safe: `state` is only touched while holding `condition`.
    nonisolated(unsafe) private var state = State()

    /// Runs `work` on a handler thread: at once when one is free or may start, else when one is.
    func run(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        state.queue.append(Waiting(work: work, since: .now))
        let startsThread = state.queue.count > state.idle && state.threads < Self.usualLimit
        if startsThread { state.threads += 1 }
        let watches = !startsThread && state.queue.count > state.idle && !state.isWatching
        if watches { state.isWatching = true }
        condition.signal()
        condition.unlock()
        if startsThread { startThread() }
        if watches { watch() }
    }

    /// Checks, after ``patience``, how much work has waited that long with no idle thread to take it, and starts a
    /// thread for each, up to ``limit``; keeps watching while work waits.
    private func watch() {
        guard let loop = try? ServerLoops.shared().next() else { return }
        loop.execute { [self] in
            _ = loop.schedule(after: Self.patience.timeInterval) { [self] in
                condition.lock()
                let now = ContinuousClock.now
                let waitedOut = state.queue.prefix { $0.since.duration(to: now) >= Self.patience }.count
                let starved = max(0, min(waitedOut - state.idle, Self.limit - state.threads))
                state.threads += starved
                let keepsWatching = state.queue.count > state.idle
                state.isWatching = keepsWatching
                condition.unlock()
                for _ in 0..<starved { startThread() }
                if keepsWatching { watch() }
            }
        }
    }

    private func startThread() {
        do {
            try DetachedThread.start(name: "RequestKitTesting.TestServer.handler") { [self] in serve() }
        } catch {
            condition.lock()
            state.threads -= 1
            let orphaned = state.threads == 0 ? state.queue : []
            if state.threads == 0 { state.queue = [] }
            condition.unlock()
            // The system refused a thread and none is left to take the work: run it here rather than lose it.
            for waiting in orphaned { waiting.work() }
        }
    }

    private func serve() {
        condition.lock()
        while true {
            if !state.queue.isEmpty {
                let waiting = state.queue.removeFirst()
                condition.unlock()
                waiting.work()
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
