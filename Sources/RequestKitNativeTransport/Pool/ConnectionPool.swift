import Foundation

/// The connections of one ``NativeTransport``: the actions of its ``ConnectionPoolStateMachine``, carried out.
///
/// The machine decides (which connection a request runs on, when a connection is opened, which waiter comes next,
/// when waiters time out and idle connections close); this class holds the connection and job objects the
/// machine's identifiers stand for, and does what it says: starts a job on its connection's loop (or lets the
/// awaiting task write it, ``HTTP1Connection/runInline(_:polls:)``), fails a job, closes connections, arms the timer.
///
/// ```
/// submit ──► machine.request ──► run on a connection / open one / wait (arm the timer)
/// release ─► machine.released ─► run the next waiter / open a replacement / idle (arm the timer)
/// timer ───► machine.timerFired ─► fail expired waiters, close expired idle connections
/// ```
///
/// Any thread may call it: the machine and the maps are guarded by `lock`, and every action is carried out after
/// the lock is released. The timer runs on the pool's loop.
final class ConnectionPool: @unchecked Sendable {
    // Safe: `machine`, `connections`, `waiting` and `nextRequest` are only touched while holding `lock`. No access
    // to them is held across a call that could reach them again (actions run after the lock is released), so they
    // skip the runtime's exclusivity checks.
    typealias Machine = ConnectionPoolStateMachine<ConnectionKey>

    private let lock = NSLock()
    @exclusivity(unchecked) private var machine: Machine
    @exclusivity(unchecked) private var connections: [Machine.ConnectionID: PooledConnection] = [:]
    @exclusivity(unchecked) private var waiting: [Machine.RequestID: RequestJob] = [:]
    @exclusivity(unchecked) private var nextRequest = 0
    /// The most connections busy at once since the pool last trimmed the heap (``HeapTrim``).
    private var peakBusy = 0

    private let bufferSize: Int
    private let connectTimeout: Double
    /// The connections' ``HTTP1Connection/pollWindow``.
    private let pollWindow: UInt64
    private let group: EventLoopGroup
    /// Makes the byte stream of a newly connected socket: the one place where plain TCP could become TLS.
    private let makeStream: HTTP1Connection.StreamFactory
    /// Where connections speak HTTP/2.
    let http2: HTTP2Policy
    /// How long an HTTP/2 connection stays idle before a PING checks it, in nanoseconds (nil: never).
    let http2PingInterval: UInt64?

    init(
        group: EventLoopGroup, maxConnectionsPerHost: Int, idleTimeout: Double, connectTimeout: Double,
        bufferSize: Int, pollWindow: UInt64, http2: HTTP2Policy = .disabled, http2PingInterval: Double = 0,
        makeStream: @escaping HTTP1Connection.StreamFactory
    ) {
        self.http2 = http2
        self.http2PingInterval =
            http2PingInterval.isFinite && http2PingInterval > 0
            ? UInt64(min(http2PingInterval, 86_400) * 1e9) : nil
        self.pollWindow = pollWindow
        self.group = group
        self.connectTimeout = connectTimeout
        self.bufferSize = bufferSize
        self.makeStream = makeStream
        let clamped = idleTimeout.isNaN ? 0 : min(max(idleTimeout, 0), 3.15e9)
        machine = Machine(
            configuration: .init(maxConnectionsPerHost: maxConnectionsPerHost, idleTimeout: UInt64(clamped * 1e9)))
    }

    deinit {
        for connection in connections.values { connection.closeIdle() }
    }

    /// The loop that runs the pool's timer.
    private var timerLoop: EventLoop { group.loops[0] }

    /// Connections open and idle, over all hosts.
    var idleCount: Int { lock.withLock { machine.idleCount } }

    /// The connections open and idle, over all hosts.
    var idleConnections: [HTTP1Connection] {
        lock.withLock {
            machine.idleConnections.compactMap {
                guard case .http1(let connection) = connections[$0] else { return nil }
                return connection
            }
        }
    }

    #if canImport(CNghttp2)
    /// The HTTP/2 connections open, over all hosts.
    var http2Connections: [HTTP2Connection] {
        lock.withLock {
            connections.values.compactMap {
                guard case .http2(let connection) = $0 else { return nil }
                return connection
            }
        }
    }
    #endif

    /// Whether a connection to `key` may learn once open that it speaks HTTP/2: TLS that offers `h2`, or plain TCP to
    /// a server the policy says speaks h2c.
    func negotiates(_ key: ConnectionKey) -> Bool {
        #if canImport(CNghttp2)
        if key.isSecure { return http2.offersOverTLS }
        return http2.usesPriorKnowledge && key.proxy == nil
            && http2.speaksPriorKnowledge(host: key.host, port: key.port)
        #else
        return false
        #endif
    }

    /// Runs `job` on a connection with room, a new one when its host is under the limit, or the next one released.
    ///
    /// - Parameter inline: Whether the caller (an awaiting task, never a loop) may write the request on an idle
    ///   connection itself (``HTTP1Connection/runInline(_:polls:)``) instead of handing it to the connection's loop,
    ///   which it does when that loop is waiting for readiness.
    func submit(_ job: RequestJob, inline: Bool = false) {
        if job.wasCancelled {
            job.finish(.cancelled)
            return
        }
        let now = EventLoop.now()
        let deadline = job.idleDeadline
        let action: Machine.RequestAction
        var connection: PooledConnection?
        let negotiates = negotiates(job.key)
        do {
            lock.lock()
            defer { lock.unlock() }
            nextRequest &+= 1
            let id = Machine.RequestID(nextRequest)
            job.poolID = id
            action = machine.request(id, key: job.key, deadline: deadline, now: now, negotiates: negotiates)
            peakBusy = max(peakBusy, machine.busyConnectionCount)
            switch action {
            case .run(let target, _):
                connection = connections[target]
            case .createConnection:
                break
            case .wait:
                waiting[id] = job
            case .fail:
                break
            }
        }
        switch action {
        case .run(_, let isAlone):
            guard let connection else { return job.finish(.failed(Self.lostConnection, wasReused: false)) }
            job.assign(connection)
            guard case .http1(let serial) = connection else {
                connection.run(job)
                // The only request in flight waits for its response here for a moment: answered within the window,
                // its task goes on without being woken by the loop (a multiplexed connection stays the loop's).
                if inline, isAlone, pollWindow > 0 { job.awaitFinish(within: pollWindow) }
                return
            }
            // Writing the request here saves waking a loop that waits; a busy loop takes the job as cheaply.
            // The only request in flight looks for its response too: its task has nothing else to do until it comes.
            if inline, !serial.loop.isCurrent, serial.loop.isWaiting,
                serial.runInline(job, polls: isAlone && pollWindow > 0)
            {
                return
            }
            serial.loop.execute { serial.run(job) }
        case .createConnection(let target):
            let fresh = makeConnection(target, key: job.key)
            job.assign(.http1(fresh))
            fresh.loop.execute { fresh.run(job) }
        case .wait(let armTimer):
            if let armTimer { arm(armTimer) }
        case .fail:
            job.finish(.failed(Self.lostConnection, wasReused: false))
        }
    }

    /// The error for a connection the pool's machine named but the pool no longer holds, which never happens.
    private static let lostConnection = RequestError.transport(
        URLError(.unknown), detail: "the connection pool lost track of a connection")

    /// Makes the connection the machine counted as `id`, outside the lock (it allocates its read buffer: a
    /// thread of the cooperative pool waiting for the lock meanwhile has been seen to make the system start another),
    /// then holds it under the lock. Nothing refers to `id` before the connection runs its first job.
    private func makeConnection(_ id: Machine.ConnectionID, key: ConnectionKey) -> HTTP1Connection {
        let connection = HTTP1Connection(
            id: id, key: key, loop: group.next(), pool: self, bufferSize: bufferSize, connectTimeout: connectTimeout,
            pollWindow: pollWindow, makeStream: makeStream)
        lock.withLock { connections[id] = .http1(connection) }
        return connection
    }

    /// Takes a job out of its host's queue; false when it was not waiting.
    func removeWaiter(_ job: RequestJob) -> Bool {
        lock.withLock {
            guard let id = job.poolID, machine.cancelled(id, key: job.key) else { return false }
            waiting[id] = nil
            return true
        }
    }

    /// Returns a connection once a job on it ended, from any thread: kept for the next job when `isReusable`,
    /// dropped otherwise (it is closed already). A waiting job gets it, or a replacement, at once.
    func release(_ connection: PooledConnection, isReusable: Bool) {
        let now = EventLoop.now()
        var next: (job: RequestJob, connection: PooledConnection)?
        var waiter: RequestJob?
        var burstEnded = false
        let action: Machine.ReleaseAction = lock.withLock {
            let action = machine.released(connection.id, isReusable: isReusable, now: now)
            if machine.busyConnectionCount == 0, peakBusy >= HeapTrim.burstSize {
                peakBusy = 0
                burstEnded = true
            }
            if !isReusable { connections[connection.id] = nil }
            switch action {
            case .run(let request, let target):
                if let job = waiting.removeValue(forKey: request), let target = connections[target] {
                    next = (job, target)
                }
            case .createConnection(_, let request):
                waiter = waiting.removeValue(forKey: request)
            case .close:
                connections[connection.id] = nil
            case .none:
                break
            }
            return action
        }
        if burstEnded { trimSoon() }
        switch action {
        case .none(let armTimer):
            if let armTimer { arm(armTimer) }
        case .close:
            connection.closeIdle()
        case .run:
            guard let next else { return }
            next.job.assign(next.connection)
            next.connection.run(next.job)
        case .createConnection(let target, _):
            let fresh = makeConnection(target, key: connection.key)
            guard let waiter else { return release(.http1(fresh), isReusable: false) }
            waiter.assign(.http1(fresh))
            fresh.loop.execute { fresh.run(waiter) }
        }
    }

    /// Forgets a connection that closed while idle (the server hung up), or that could not be opened.
    func discard(_ connection: PooledConnection) {
        lock.withLock {
            machine.closed(connection.id)
            connections[connection.id] = nil
        }
    }

    /// Gives the burst's memory back a second after it ended, when the tasks that ran it have ended too, unless
    /// another burst began meanwhile.
    private func trimSoon() {
        let loop = timerLoop
        loop.execute { [weak self] in
            _ = loop.schedule(after: 1) {
                guard let self, self.lock.withLock({ self.machine.busyConnectionCount == 0 }) else { return }
                HeapTrim.trim()
            }
        }
    }

    /// Arms the pool's timer for `deadline` (``EventLoop/now()`` nanoseconds).
    private func arm(_ deadline: UInt64) {
        let loop = timerLoop
        loop.execute { [weak self] in
            _ = loop.schedule(at: deadline) { self?.timerFired(deadline) }
        }
    }

    /// Fails the waiting jobs whose deadline passed and closes connections idle for too long.
    private func timerFired(_ deadline: UInt64) {
        let now = EventLoop.now()
        let (expired, closing, armTimer): ([RequestJob], [PooledConnection], UInt64?) = lock.withLock {
            let action = machine.timerFired(deadline: deadline, now: now)
            let expired = action.expired.compactMap { waiting.removeValue(forKey: $0) }
            let closing = action.closing.compactMap { connections.removeValue(forKey: $0) }
            return (expired, closing, action.armTimer)
        }
        for job in expired { job.finish(.poolWaitTimedOut) }
        for connection in closing { connection.closeIdle() }
        if let armTimer { arm(armTimer) }
    }

    /// Closes every idle connection now.
    func closeIdleConnections() {
        let idle: [PooledConnection] = lock.withLock {
            machine.closeIdleConnections().compactMap { connections.removeValue(forKey: $0) }
        }
        for connection in idle { connection.closeIdle() }
    }

    // MARK: Negotiation

    /// An HTTP/1.1 connection learned, once open, that it speaks HTTP/1.1: the waiters left over open connections of
    /// their own.
    func negotiatedHTTP1(_ connection: HTTP1Connection) {
        negotiated(.http1(connection), capacity: 1, replacing: false)
    }

    #if canImport(CNghttp2)
    /// `connection` takes over from the HTTP/1.1 connection that opened its socket and learned it speaks HTTP/2:
    /// its job and its place in the pool. Waiters run on it up to `capacity` streams at once.
    func switchedToHTTP2(_ connection: HTTP2Connection, capacity: Int) {
        negotiated(.http2(connection), capacity: capacity, replacing: true)
    }

    /// An HTTP/2 connection's server changed how many streams it allows at once: waiters take the room it gained.
    func capacityChanged(_ connection: HTTP2Connection, to capacity: Int) {
        let started: [RequestJob] = lock.withLock {
            machine.capacityChanged(connection.id, to: capacity).compactMap { waiting.removeValue(forKey: $0) }
        }
        for job in started {
            job.assign(.http2(connection))
            connection.run(job)
        }
    }

    /// An HTTP/2 connection's server is going away: the connection takes no new requests. Returns whether it carries
    /// none now, when it closes at once.
    func goingAway(_ connection: HTTP2Connection) -> Bool {
        lock.withLock {
            let isIdle = machine.goingAway(connection.id)
            if isIdle { connections[connection.id] = nil }
            return isIdle
        }
    }
    #endif

    /// Carries out what a connection's learning its protocol calls for: waiters to run on it, connections to open.
    private func negotiated(_ connection: PooledConnection, capacity: Int, replacing: Bool) {
        let now = EventLoop.now()
        var created: [(Machine.ConnectionID, RequestJob)] = []
        let started: [RequestJob] = lock.withLock {
            if replacing, connections[connection.id] != nil { connections[connection.id] = connection }
            let action = machine.negotiated(connection.id, capacity: capacity, now: now)
            for pair in action.create {
                guard let job = waiting.removeValue(forKey: pair.request) else { continue }
                created.append((pair.connection, job))
            }
            return action.run.compactMap { waiting.removeValue(forKey: $0) }
        }
        for job in started {
            job.assign(connection)
            connection.run(job)
        }
        for (id, job) in created {
            let fresh = makeConnection(id, key: connection.key)
            job.assign(.http1(fresh))
            fresh.loop.execute { fresh.run(job) }
        }
    }
}
