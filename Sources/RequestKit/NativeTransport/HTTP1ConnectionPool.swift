import Foundation

/// The connections of one ``HTTP1Transport``, grouped by host and port: at most a set number busy per host,
/// requests over that number waiting in order, idle connections reused newest first and closed after a while.
///
/// ```
/// acquire ──► idle connection still open? ──► reuse it
///        └──► under the host's limit? ──► a new, unconnected connection
///        └──► wait for release(_:isReusable:)
/// ```
final class HTTP1ConnectionPool: @unchecked Sendable {
    // Safe: `hosts`, `nextWaiterID`, `isEvictionScheduled` and `isShutDown` are only touched while holding
    // `lock`; continuations are resumed after the lock is released.
    private let lock = NSLock()
    private var hosts: [HTTP1ConnectionKey: HostState] = [:]
    private var nextWaiterID = 0
    private var isEvictionScheduled = false

    private let maxConnectionsPerHost: Int
    private let idleTimeout: Double
    private let bufferSize: Int
    private static let evictionQueue = DispatchQueue(label: "RequestKit.HTTP1ConnectionPool.eviction")

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<HTTP1Connection, any Error>
    }

    private struct HostState {
        var idle: [HTTP1Connection] = []
        var leased = 0
        var waiters: [Waiter] = []
    }

    init(maxConnectionsPerHost: Int, idleTimeout: Double, bufferSize: Int) {
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.idleTimeout = idleTimeout
        self.bufferSize = bufferSize
    }

    deinit {
        for state in hosts.values {
            for connection in state.idle { connection.closeSocket() }
        }
    }

    /// Connections open and idle, over all hosts.
    var idleCount: Int { lock.withLock { hosts.values.reduce(0) { $0 + $1.idle.count } } }

    /// Leases a connection to `key`: an idle one that is still open, a new unconnected one when the host is under
    /// its limit, or the next one released when it is not.
    ///
    /// - Parameters:
    ///   - key: The host and port.
    ///   - timeout: The longest wait for a connection to come free, in seconds.
    /// - Throws: `CancellationError` when the task is cancelled while waiting, ``HTTP1PoolWaitTimeout`` when no
    ///   connection came free within `timeout`.
    func acquire(_ key: HTTP1ConnectionKey, timeout: Double) async throws -> HTTP1Connection {
        let (leased, stale) = lock.withLock { () -> (HTTP1Connection?, [HTTP1Connection]) in
            var state = hosts[key, default: HostState()]
            defer { hosts[key] = state }
            var stale: [HTTP1Connection] = []
            while let candidate = state.idle.popLast() {
                if candidate.isUsableWhileIdle {
                    state.leased += 1
                    return (candidate, stale)
                }
                stale.append(candidate)
            }
            guard state.leased < maxConnectionsPerHost else { return (nil, stale) }
            state.leased += 1
            return (HTTP1Connection(key: key, bufferSize: bufferSize), stale)
        }
        for connection in stale { connection.closeSocket() }
        if let leased { return leased }
        return try await wait(for: key, timeout: timeout)
    }

    private func wait(for key: HTTP1ConnectionKey, timeout: Double) async throws -> HTTP1Connection {
        let id = lock.withLock {
            nextWaiterID += 1
            return nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let isCancelled: Bool = lock.withLock {
                    if Task.isCancelled { return true }
                    hosts[key, default: HostState()].waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else if timeout.isFinite, timeout < 1e6 {
                    Self.evictionQueue.asyncAfter(deadline: .now() + max(0, timeout)) { [weak self] in
                        self?.removeWaiter(id, for: key)?.continuation.resume(throwing: HTTP1PoolWaitTimeout())
                    }
                }
            }
        } onCancel: {
            removeWaiter(id, for: key)?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Takes a waiter out of its host's queue, if it is still waiting.
    private func removeWaiter(_ id: Int, for key: HTTP1ConnectionKey) -> Waiter? {
        lock.withLock {
            guard let index = hosts[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return hosts[key]?.waiters.remove(at: index)
        }
    }

    /// Returns a leased connection: kept for the next request when `isReusable`, closed otherwise. A waiting
    /// request gets it (or its slot) at once.
    func release(_ connection: HTTP1Connection, isReusable: Bool) {
        let keep = isReusable && !connection.wasCancelled && connection.isConnected
        if !keep { connection.closeSocket() }
        connection.lastUsed = .now()
        let key = connection.key
        let (waiter, handed, scheduleEviction): (Waiter?, HTTP1Connection?, Bool) = lock.withLock {
            guard var state = hosts[key] else { return (nil, nil, false) }
            defer { hosts[key] = state }
            if !state.waiters.isEmpty {
                let waiter = state.waiters.removeFirst()
                let handed = keep ? connection : HTTP1Connection(key: key, bufferSize: bufferSize)
                return (waiter, handed, false)
            }
            state.leased -= 1
            guard keep else { return (nil, nil, false) }
            state.idle.append(connection)
            let schedule = !isEvictionScheduled
            isEvictionScheduled = true
            return (nil, nil, schedule)
        }
        if let waiter, let handed { waiter.continuation.resume(returning: handed) }
        if scheduleEviction { scheduleEvictionCheck(after: idleTimeout) }
    }

    private func scheduleEvictionCheck(after seconds: Double) {
        guard seconds.isFinite, seconds > 0 else {
            lock.withLock { isEvictionScheduled = false }
            return
        }
        Self.evictionQueue.asyncAfter(deadline: .now() + seconds) { [weak self] in
            self?.evictIdleConnections()
        }
    }

    /// Closes connections idle for longer than the idle timeout, and checks again when the next one expires.
    func evictIdleConnections() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(max(0, min(idleTimeout, 1e9)) * 1e9)
        let (expired, nextCheck): ([HTTP1Connection], Double?) = lock.withLock {
            var expired: [HTTP1Connection] = []
            var soonest: UInt64?
            for key in Array(hosts.keys) {
                guard var state = hosts[key] else { continue }
                state.idle.removeAll { connection in
                    let age = now &- connection.lastUsed.uptimeNanoseconds
                    if age >= limit {
                        expired.append(connection)
                        return true
                    }
                    soonest = min(soonest ?? .max, limit - age)
                    return false
                }
                if state.idle.isEmpty, state.leased == 0, state.waiters.isEmpty {
                    hosts[key] = nil
                } else {
                    hosts[key] = state
                }
            }
            isEvictionScheduled = soonest != nil
            return (expired, soonest.map { Double($0) / 1e9 + 0.001 })
        }
        for connection in expired { connection.closeSocket() }
        if let nextCheck { scheduleEvictionCheck(after: nextCheck) }
    }

    /// Closes every idle connection now.
    func closeIdleConnections() {
        let idle: [HTTP1Connection] = lock.withLock {
            var idle: [HTTP1Connection] = []
            for key in Array(hosts.keys) {
                idle += hosts[key]?.idle ?? []
                hosts[key]?.idle = []
            }
            return idle
        }
        for connection in idle { connection.closeSocket() }
    }
}
