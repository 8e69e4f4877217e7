import Foundation

/// The connections of one ``HTTP1Transport``, grouped by host and port: at most a set number leased per host,
/// jobs over that number waiting in order (until their deadline or cancellation), idle connections reused newest
/// first and closed after a while.
///
/// ```
/// submit ──► idle connection? ──► run the job on it (on its loop, or written by the caller: sendInline)
///       └──► under the host's limit? ──► a new connection on the next loop
///       └──► wait for release(_:isReusable:), or the job's deadline
/// ```
///
/// Any thread may call it; the deadlines of waiting jobs and idle connections are timers on the pool's loop.
final class HTTP1ConnectionPool: @unchecked Sendable {
    // Safe: `hosts`, `leasedCount`, `nextSweep`, `isEvictionScheduled` and each connection's `idleSince` are only
    // touched while holding `lock`; connections are started on their own loop with `execute`, after the lock is
    // released. No access to `hosts` or `leasedCount` is held across a call that could reach it again, so they skip
    // the runtime's exclusivity checks.
    private let lock = NSLock()
    @exclusivity(unchecked) private var hosts: [HTTP1ConnectionKey: HostState] = [:]
    /// Connections leased, over all hosts.
    @exclusivity(unchecked) private var leasedCount = 0
    private var nextSweep: UInt64?
    private var isEvictionScheduled = false

    private let maxConnectionsPerHost: Int
    private let idleTimeout: Double
    private let bufferSize: Int
    private let connectTimeout: Double
    /// The connections' ``HTTP1Connection/pollWindow``.
    private let pollWindow: UInt64
    private let group: HTTP1EventLoopGroup
    /// Makes the byte stream of a newly connected socket: the one place where plain TCP could become TLS.
    private let makeStream: HTTP1Connection.StreamFactory

    private struct HostState {
        var idle: [HTTP1Connection] = []
        var leased = 0
        var waiters: [Waiter] = []
    }

    /// A job waiting for a connection, until its deadline (``HTTP1EventLoop/now()`` nanoseconds), if it has one.
    private struct Waiter {
        let job: HTTP1Job
        let deadline: UInt64?
    }

    init(
        group: HTTP1EventLoopGroup, maxConnectionsPerHost: Int, idleTimeout: Double, connectTimeout: Double,
        bufferSize: Int, pollWindow: UInt64, makeStream: @escaping HTTP1Connection.StreamFactory
    ) {
        self.pollWindow = pollWindow
        self.group = group
        self.maxConnectionsPerHost = max(1, maxConnectionsPerHost)
        self.idleTimeout = idleTimeout
        self.connectTimeout = connectTimeout
        self.bufferSize = bufferSize
        self.makeStream = makeStream
    }

    deinit {
        for state in hosts.values {
            for connection in state.idle { connection.loop.execute { connection.closeIdle() } }
        }
    }

    /// The loop that runs the pool's timers.
    private var timerLoop: HTTP1EventLoop { group.loops[0] }

    /// Connections open and idle, over all hosts.
    var idleCount: Int { lock.withLock { hosts.values.reduce(0) { $0 + $1.idle.count } } }

    /// The connections open and idle, over all hosts.
    var idleConnections: [HTTP1Connection] { lock.withLock { hosts.values.flatMap(\.idle) } }

    /// Runs `job` on an idle connection, a new one when the host is under its limit, or the next one released.
    ///
    /// - Parameter inline: Whether the caller (an awaiting task, never a loop) may write the request on an idle
    ///   connection itself (``HTTP1Connection/sendInline(_:)``) instead of handing it to the connection's loop,
    ///   which it does when that loop is waiting for readiness.
    func submit(_ job: HTTP1Job, inline: Bool = false) {
        if job.wasCancelled {
            job.finish(.cancelled)
            return
        }
        let lease = lock.withLock {
            // Changed in place: a copy of the state would copy its arrays at the first change.
            take(job, into: &hosts[job.key, default: HostState()])
        }
        switch lease {
        case .idle(let connection, let isAlone):
            // Writing the request here saves waking a loop that waits; a busy loop takes the job as cheaply.
            if inline, !connection.loop.isCurrent, connection.loop.isWaiting, connection.sendInline(job) {
                // The only request in flight: its task has nothing else to do until the response comes.
                if isAlone, pollWindow > 0 { connection.pollForPromptResponse(job) }
                return
            }
            connection.loop.execute { connection.run(job) }
        case .new:
            // Made outside the lock (it allocates the read buffer); the slot is counted already. A job cancelled
            // meanwhile is not waiting, so it is the connection that finds it cancelled when it starts.
            let fresh = makeConnection(job.key)
            job.assign(fresh)
            fresh.loop.execute { fresh.run(job) }
        case .waiting(let sweepAt):
            guard let sweepAt else { return }
            let loop = timerLoop
            loop.execute { [weak self] in _ = loop.schedule(at: sweepAt) { self?.expireWaiters() } }
        }
    }

    /// What ``take(_:into:)`` gave a job.
    private enum Lease {
        /// An idle connection, assigned to the job, and whether it is now the only connection leased.
        case idle(HTTP1Connection, isAlone: Bool)
        /// A slot for a new connection.
        case new
        /// A place in the queue, and the deadline of a pool-wait sweep to schedule, if one is needed.
        case waiting(sweepAt: UInt64?)
    }

    /// Leases an idle connection or a slot for a new one to `job`, or queues it (under the lock).
    private func take(_ job: HTTP1Job, into state: inout HostState) -> Lease {
        if let idle = state.idle.popLast() {
            state.leased += 1
            leasedCount += 1
            job.assign(idle)
            return .idle(idle, isAlone: leasedCount == 1)
        }
        guard state.leased < maxConnectionsPerHost else {
            // The wait is bounded by the request's idle timeout, counted from now (a retried request waits anew).
            let timeout = job.idleTimeout
            let deadline =
                timeout.isFinite && timeout > 0 && timeout < 1e6 ? HTTP1EventLoop.deadline(after: timeout) : nil
            state.waiters.append(Waiter(job: job, deadline: deadline))
            guard let deadline, nextSweep.map({ deadline < $0 }) ?? true else {
                return .waiting(sweepAt: nil)
            }
            nextSweep = deadline
            return .waiting(sweepAt: deadline)
        }
        state.leased += 1
        leasedCount += 1
        return .new
    }

    private func makeConnection(_ key: HTTP1ConnectionKey) -> HTTP1Connection {
        HTTP1Connection(
            key: key, loop: group.next(), pool: self, bufferSize: bufferSize, connectTimeout: connectTimeout,
            pollWindow: pollWindow, makeStream: makeStream)
    }

    /// Takes a job out of its host's queue; false when it was not waiting.
    func removeWaiter(_ job: HTTP1Job) -> Bool {
        lock.withLock {
            guard let index = hosts[job.key]?.waiters.firstIndex(where: { $0.job === job }) else { return false }
            hosts[job.key]?.waiters.remove(at: index)
            return true
        }
    }

    /// Fails the waiting jobs whose deadline passed, and schedules the next check.
    private func expireWaiters() {
        let now = HTTP1EventLoop.now()
        let (expired, next): ([HTTP1Job], UInt64?) = lock.withLock {
            var expired: [HTTP1Job] = []
            var next: UInt64?
            for key in Array(hosts.keys) {
                guard var state = hosts[key], !state.waiters.isEmpty else { continue }
                state.waiters.removeAll { waiter in
                    guard let deadline = waiter.deadline else { return false }
                    if deadline <= now {
                        expired.append(waiter.job)
                        return true
                    }
                    next = min(next ?? .max, deadline)
                    return false
                }
                hosts[key] = state
            }
            nextSweep = next
            return (expired, next)
        }
        for job in expired { job.finish(.poolWaitTimedOut) }
        if let next { _ = timerLoop.schedule(at: next) { [weak self] in self?.expireWaiters() } }
    }

    /// Returns a leased connection, from any thread, once no job runs on it: kept for the next job when `isReusable`, dropped otherwise (it is
    /// closed already). A waiting job gets it, or its slot, at once.
    func release(_ connection: HTTP1Connection, isReusable: Bool) {
        let key = connection.key
        let (next, target, scheduleEviction): (HTTP1Job?, HTTP1Connection?, Bool) = lock.withLock {
            guard let index = hosts.index(forKey: key) else { return (nil, nil, false) }
            let (next, target, isIdle) = give(connection, isReusable: isReusable, from: &hosts.values[index])
            guard isIdle else { return (next, target, false) }
            let schedule = !isEvictionScheduled
            isEvictionScheduled = true
            return (nil, nil, schedule)
        }
        if let next, let target { target.loop.execute { target.run(next) } }
        if scheduleEviction { scheduleEvictionCheck(after: idleTimeout) }
    }

    /// Hands a released connection (or, when it is not reusable, a new one) to the first waiting job, or puts it
    /// back with the idle ones (under the lock): returns the job and the connection to run it on, and whether the
    /// connection went idle.
    private func give(
        _ connection: HTTP1Connection, isReusable: Bool, from state: inout HostState
    ) -> (HTTP1Job?, HTTP1Connection?, Bool) {
        if !state.waiters.isEmpty {
            let job = state.waiters.removeFirst().job
            let target = isReusable ? connection : makeConnection(connection.key)
            job.assign(target)
            return (job, target, false)
        }
        state.leased -= 1
        leasedCount -= 1
        guard isReusable else { return (nil, nil, false) }
        connection.idleSince = HTTP1EventLoop.now()
        state.idle.append(connection)
        return (nil, nil, true)
    }

    /// Gives a kept-alive connection, still leased, to the first job waiting for its host; false when none waits.
    func handOverIfWaiting(_ connection: HTTP1Connection) -> Bool {
        let next: HTTP1Job? = lock.withLock {
            guard let index = hosts.index(forKey: connection.key), !hosts.values[index].waiters.isEmpty else {
                return nil
            }
            let job = hosts.values[index].waiters.removeFirst().job
            job.assign(connection)
            return job
        }
        guard let next else { return false }
        connection.loop.execute { connection.run(next) }
        return true
    }

    /// Forgets an idle connection that closed (the server hung up); nothing when it was leased meanwhile.
    func discardIdle(_ connection: HTTP1Connection) {
        lock.withLock {
            guard let index = hosts[connection.key]?.idle.firstIndex(where: { $0 === connection }) else { return }
            hosts[connection.key]?.idle.remove(at: index)
        }
    }

    private func scheduleEvictionCheck(after seconds: Double) {
        guard seconds.isFinite, seconds > 0 else {
            lock.withLock { isEvictionScheduled = false }
            return
        }
        let loop = timerLoop
        let deadline = HTTP1EventLoop.deadline(after: seconds)
        loop.execute { [weak self] in _ = loop.schedule(at: deadline) { self?.evictIdleConnections() } }
    }

    /// Closes connections idle for longer than the idle timeout, and checks again when the next one expires.
    private func evictIdleConnections() {
        let now = HTTP1EventLoop.now()
        let limit = UInt64(max(0, min(idleTimeout, 1e9)) * 1e9)
        let (expired, nextCheck): ([HTTP1Connection], Double?) = lock.withLock {
            var expired: [HTTP1Connection] = []
            var soonest: UInt64?
            for key in Array(hosts.keys) {
                guard var state = hosts[key] else { continue }
                state.idle.removeAll { connection in
                    let age = now &- connection.idleSince
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
        for connection in expired { connection.loop.execute { connection.closeIdle() } }
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
        for connection in idle { connection.loop.execute { connection.closeIdle() } }
    }
}
