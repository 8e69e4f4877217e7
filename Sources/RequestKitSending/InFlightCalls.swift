import Foundation
import RequestKitDSL
import RequestKitModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The calls started in the background (``Request/call(on:)`` and the like) that have not finished: what
/// ``RequestHandle/waitForAll()`` waits for, and what the process names on standard error if it exits before them.
///
/// A top-level script that ends right after `call()` exits before the handlers run. The first call installs an
/// `atexit` hook that writes one line naming the calls still in flight, so the author learns why nothing printed.
/// The hook takes the lock only if it is free (it never waits at exit), and writes nothing when every call finished.
package final class InFlightCalls: @unchecked Sendable {
    // Safe: every stored property is read and written holding `lock`.
    /// The calls of this process.
    package static let shared = InFlightCalls()

    private let lock = NSLock()
    private var labels: [UInt64: @Sendable () -> String] = [:]
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextID: UInt64 = 0
    private var isExitHookInstalled = false

    package init() {}

    /// Records a call that has started; `label` names it ("GET http://…", secrets redacted) if the process exits first.
    /// - Returns: The call's identifier, for ``end(_:)``.
    package func begin(_ label: @escaping @Sendable () -> String) -> UInt64 {
        let installsExitHook = self === Self.shared
        let (id, needsHook) = lock.withLock { () -> (UInt64, Bool) in
            nextID += 1
            labels[nextID] = label
            let needsHook = installsExitHook && !isExitHookInstalled
            isExitHookInstalled = isExitHookInstalled || needsHook
            return (nextID, needsHook)
        }
        if needsHook { atexit { InFlightCalls.shared.reportAtExit() } }
        return id
    }

    /// Records that a call has finished, its handlers run; resumes the waiters when it was the last one.
    package func end(_ id: UInt64) {
        let resumed = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            labels[id] = nil
            guard labels.isEmpty else { return [] }
            defer { waiters = [:] }
            return Array(waiters.values)
        }
        for waiter in resumed { waiter.resume() }
    }

    /// The number of calls in flight.
    package var count: Int { lock.withLock { labels.count } }

    /// The number of tasks waiting in ``waitUntilNoneInFlight()``.
    package var waiterCount: Int { lock.withLock { waiters.count } }

    /// The labels of the calls in flight, oldest first.
    package var inFlight: [String] {
        let labels = lock.withLock { self.labels.sorted { $0.key < $1.key }.map(\.value) }
        return labels.map { $0() }
    }

    /// Returns once no call is in flight (at once when none is), or when the waiting task is cancelled.
    package func waitUntilNoneInFlight() async {
        let id = lock.withLock { () -> UInt64 in
            nextID += 1
            return nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumesNow = lock.withLock { () -> Bool in
                    if labels.isEmpty || Task.isCancelled { return true }
                    waiters[id] = continuation
                    return false
                }
                if resumesNow { continuation.resume() }
            }
        } onCancel: {
            lock.withLock { waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// The line written to standard error at exit, or nil when no call is in flight.
    package static func exitReport(naming labels: [String]) -> String? {
        guard !labels.isEmpty else { return nil }
        let shown = 10
        var names = labels.prefix(shown).joined(separator: ", ")
        if labels.count > shown { names += " and \(labels.count - shown) more" }
        let calls = labels.count == 1 ? "1 call" : "\(labels.count) calls"
        return "RequestKit: the process exited with \(calls) in flight, whose handlers never ran: \(names). "
            + "Wait for them with `await handle.wait()` or `await RequestHandle.waitForAll()`.\n"
    }

    /// Writes the exit report to standard error, unless the lock is held (then it stays silent rather than wait).
    private func reportAtExit() {
        guard lock.try() else { return }
        let labels = self.labels.sorted { $0.key < $1.key }.map(\.value)
        lock.unlock()
        guard let line = Self.exitReport(naming: labels.map { $0() }) else { return }
        let bytes = Array(line.utf8)
        _ = bytes.withUnsafeBytes { buffer in write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
    }
}

extension RequestRepresentable {
    /// How a call of this request is named in flight: its method and URL, secrets redacted.
    package var inFlightLabel: String { request.parts().label ?? "an invalid request" }
}
