import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How and when one child of ``ChildProcess`` ended, found without blocking a thread: a task of its own asks
/// `waitpid` with `WNOHANG` after 1 ms, then after twice as long each time up to every 100 ms, and reaps the child
/// as soon as it has ended, whether anyone waits or not (so no zombie is left).
///
/// ```swift
/// let exit = ChildExit(identifier: pid)
/// let termination = await exit.termination()
/// ```
package final class ChildExit: @unchecked Sendable {
    // Safe: `ended` and `waiters` are only touched while holding `lock`. The child is reaped and signalled under
    // the lock too, so a signal never reaches an identifier that was reaped (and may belong to another process).
    private let lock = NSLock()
    private let identifier: pid_t
    private var ended: ChildProcess.Termination?
    private var waiters: [Waiter] = []

    private typealias Waiter = CheckedContinuation<ChildProcess.Termination, Never>

    /// Starts watching the child `identifier`, which this process started and nothing else reaps.
    package init(identifier: pid_t) {
        self.identifier = identifier
        Task.detached { [self] in await watch() }
    }

    /// How the child ended, or `nil` while it has not been seen to end.
    package var termination: ChildProcess.Termination? { lock.withLock { ended } }

    /// Waits until the child has ended.
    package func termination() async -> ChildProcess.Termination {
        await withCheckedContinuation { continuation in
            let known: ChildProcess.Termination? = lock.withLock {
                if ended == nil { waiters.append(continuation) }
                return ended
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// Sends `signal` to the child's process group, unless the child has been reaped.
    package func signalGroup(_ signal: Int32) {
        lock.withLock {
            if ended == nil { _ = kill(-identifier, signal) }
        }
    }

    private func watch() async {
        var interval = Duration.milliseconds(1)
        while !reap() {
            try? await Task.sleep(for: interval)
            interval = min(interval * 2, .milliseconds(100))
        }
    }

    /// Reaps the child if it has ended, and resumes the waiters; true once it has.
    private func reap() -> Bool {
        let reaped: (termination: ChildProcess.Termination, waiters: [Waiter])? = lock.withLock {
            var status: Int32 = 0
            let result = waitpid(identifier, &status, WNOHANG)
            if result == 0 || (result < 0 && errno == EINTR) { return nil }
            // Anything else than the child's identifier means it can no longer be waited for: count it as ended.
            let termination = result == identifier ? Self.termination(fromWaitStatus: status) : .exited(-1)
            ended = termination
            defer { waiters = [] }
            return (termination, waiters)
        }
        guard let reaped else { return false }
        for waiter in reaped.waiters { waiter.resume(returning: reaped.termination) }
        return true
    }

    /// `WIFEXITED`, `WEXITSTATUS` and `WTERMSIG`, which are macros Swift does not import.
    package static func termination(fromWaitStatus status: Int32) -> ChildProcess.Termination {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
