import Foundation
import RequestKitConnect
import RequestKitModel

/// The connections of one ``NativeTransport``: the actions of its ``ConnectionPoolStateMachine``, carried out.
///
/// The machine decides (which connection a request runs on, when a connection is opened, which waiter comes next,
/// when waiters time out and idle connections close); this class holds the connection and job objects the
/// machine's identifiers stand for, and does what it says: opens connections through a ``Connector`` and makes an
/// HTTP/1.1 or an HTTP/2 connection of what it opened, starts a job on its connection's loop (or lets the awaiting
/// task write it, ``HTTP1Connection/runInline(_:polls:)``), fails a job, closes connections, arms the timer.
///
/// ```
/// submit ──► machine.request ──► run on a connection / open one / wait (arm the timer)
/// release ─► machine.released ─► run the next waiter / open a replacement / idle (arm the timer)
/// timer ───► machine.timerFired ─► fail expired waiters, close expired idle connections
/// ```
///
/// Any thread may call it: the machine and the maps are guarded by `lock`, and every action is carried out after
/// the lock is released. The timer runs on the pool's first loop.
final class ConnectionPool: @unchecked Sendable {
    // Safe: `machine`, `connections`, `waiting`, `nextRequest` and `peakBusy` are only touched while holding `lock`.
    // No access to them is held across a call that could reach them again (actions run after the lock is released),
    // so they skip the runtime's exclusivity checks.
    typealias Machine = ConnectionPoolStateMachine<ConnectionKey>

    private let lock = NSLock()
    @exclusivity(unchecked) private var machine: Machine
    @exclusivity(unchecked) private var connections: [Machine.ConnectionID: PooledConnection] = [:]
    @exclusivity(unchecked) private var waiting: [Machine.RequestID: RequestJob] = [:]
    @exclusivity(unchecked) private var nextRequest = 0
    /// The most requests running on connections at once since the pool last trimmed the heap (``HeapTrim``): over
    /// HTTP/2, many on each connection.
    @exclusivity(unchecked) private var peakBusy = 0
    /// The open connections as `observers` last heard of them; kept only when there are observers.
    @exclusivity(unchecked) private var observed = ObservedConnections<Machine.ConnectionID>()
    /// Told when a connection opens, goes idle or active, and closes.
    private let observers: [any ConnectionObserver]

    private let bufferSize: Int
    private let connectTimeout: Double
    /// The connections' ``HTTP1Connection`` poll window.
    private let pollWindow: UInt64
    let group: EventLoopGroup
    /// The system calls connectors make: the one place where plain TCP could become TLS.
    private let dialer: any SocketDialer
    /// Where connectors get the hosts' addresses.
    let resolver: HostResolver
    /// The resolution and attempt delays of each connector's address race.
    private let race: HappyEyeballsStateMachine.Configuration
    /// Where connections speak HTTP/2.
    let http2: HTTP2Policy
    /// How long an HTTP/2 connection stays idle before a PING checks it, in nanoseconds (nil: never).
    let http2PingInterval: UInt64?
    /// The clock of the pool's loops, which jobs and deadlines read.
    var clock: LoopClock { group.clock }

    init(
        group: EventLoopGroup, maxConnectionsPerHost: Int, idleTimeout: Double, connectTimeout: Double,
        bufferSize: Int, pollWindow: UInt64, http2: HTTP2Policy = .disabled, http2PingInterval: Double = 0,
        dialer: any SocketDialer = SystemDialer(), resolver: HostResolver = HostResolver(),
        race: HappyEyeballsStateMachine.Configuration = .init(), observers: [any ConnectionObserver] = []
    ) {
        self.observers = observers
        self.resolver = resolver
        self.race = race
        self.http2 = http2
        self.http2PingInterval =
            http2PingInterval.isFinite && http2PingInterval > 0
            ? UInt64(min(http2PingInterval, 86_400) * 1e9) : nil
        self.pollWindow = pollWindow
        self.group = group
        self.connectTimeout = connectTimeout
        self.bufferSize = bufferSize
        self.dialer = dialer
        let clamped = idleTimeout.isNaN ? 0 : min(max(idleTimeout, 0), 3.15e9)
        machine = Machine(
            configuration: .init(
                maxConnectionsPerHost: maxConnectionsPerHost, idleTimeout: UInt64(clamped * 1e9),
                aloneAfterOverlap: Self.aloneAfterOverlap))
    }

    /// How long requests must have gone one at a time before the one in flight looks for its response itself
    /// (``HTTP1Connection/runInline(_:polls:)``): 10 ms. Between concurrent requests, a task that polls holds one
    /// of the few threads the other tasks need.
    static let aloneAfterOverlap: UInt64 = 10_000_000

    deinit {
        for connection in connections.values { connection.closeIdle() }
        report(observed.closeAll())
    }

    /// The loop that runs the pool's timer.
    private var timerLoop: EventLoop { group.loops[0] }

    /// Connections open and idle, over all hosts.
    var idleCount: Int { lock.withLock { machine.idleCount } }

    /// The most connections the pool lets one host have.
    var maxConnectionsPerHost: Int { machine.configuration.maxConnectionsPerHost }

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
    /// - Parameter inline: Whether the caller is an awaiting task, outside every connection's step: it may write the
    ///   request on an idle connection itself (``HTTP1Connection/runInline(_:polls:)``, or
    ///   ``HTTP2Connection/runInline(_:)`` on an HTTP/2 connection with no stream open) instead of handing it to the
    ///   connection's loop, which it does when that loop is waiting for readiness; a task that runs on the
    ///   connection's loop (the loop its executor) starts the job at once, on any connection.
    func submit(_ job: RequestJob, inline: Bool = false) {
        if job.wasCancelled {
            job.finish(.cancelled)
            return
        }
        let now = clock.now()
        let deadline = job.idleDeadline
        let action: Machine.RequestAction
        var connection: PooledConnection?
        var closing: PooledConnection?
        var change: ObservedConnections<Machine.ConnectionID>.Change?
        let negotiates = negotiates(job.key)
        do {
            lock.lock()
            defer { lock.unlock() }
            nextRequest &+= 1
            let id = Machine.RequestID(nextRequest)
            job.poolID = id
            action = machine.request(
                id, key: job.key, deadline: deadline, now: now, negotiates: negotiates,
                fresh: job.requiresFreshConnection)
            peakBusy = max(peakBusy, machine.busyRequestCount)
            switch action {
            case .run(let target, _):
                connection = connections[target]
                change = observe(target)
            case .replaceConnection(let idle, _):
                closing = connections.removeValue(forKey: idle)
                change = observe(idle)
            case .wait:
                waiting[id] = job
            case .createConnection, .fail:
                break
            }
        }
        report(change)
        switch action {
        case .run(_, let isAlone):
            guard let connection else { return job.finish(.failed(Self.lostConnection, wasReused: false)) }
            job.assign(connection)
            // A task that runs on the connection's loop (its executor preferred) starts the job where it is.
            if inline, connection.loop.isCurrent { return connection.runOnLoop(job) }
            guard case .http1(let serial) = connection else {
                #if canImport(CNghttp2)
                // On a multiplexed connection with no stream open, the task writes its request itself while the
                // loop waits: the loop, woken by the response alone, finishes the job. Nothing here waits for it.
                if inline, case .http2(let multiplexed) = connection, multiplexed.loop.isWaiting,
                    multiplexed.runInline(job)
                {
                    return
                }
                #endif
                return connection.run(job)
            }
            // Writing the request here saves waking a loop that waits; a busy loop takes the job as cheaply.
            // The only request in flight looks for its response too: its task has nothing else to do until it comes.
            if inline, serial.loop.isWaiting,
                serial.runInline(job, polls: isAlone && pollWindow > 0)
            {
                return
            }
            serial.loop.execute { serial.run(job) }
        case .createConnection(let target):
            open(target, for: job)
        case .replaceConnection(_, let target):
            closing?.closeIdle()
            open(target, for: job)
        case .wait(let armTimer):
            if let armTimer { arm(armTimer) }
        case .fail:
            job.finish(.failed(Self.lostConnection, wasReused: false))
        }
    }

    /// The error for a connection the pool's machine named but the pool no longer holds, which never happens.
    private static let lostConnection = RequestError.transport(
        URLError(.unknown), detail: "the connection pool lost track of a connection")

    /// Opens the connection the machine counted as `id` for `job`, through a connector on the next loop; the job's
    /// deadline bounds it.
    private func open(_ id: Machine.ConnectionID, for job: RequestJob) {
        let loop = group.next()
        let connector = Connector(
            key: job.key, loop: loop, dialer: dialer, resolution: resolver, connectTimeout: connectTimeout,
            deadline: job.idleDeadline, requestTimeout: job.idleTimeout, negotiatesHTTP2: negotiates(job.key),
            race: race
        ) { [weak self] outcome in
            self?.connectorEnded(id, loop: loop, job: job, outcome: outcome)
        }
        lock.withLock { connections[id] = .connecting(connector, id: id) }
        job.assign(.connecting(connector, id: id))
        loop.execute {
            job.record.assign(isReused: false, at: loop.now())
            connector.start()
        }
    }

    /// A connector ended, on its loop: the job runs on the connection it opened, or fails with why none was.
    private func connectorEnded(
        _ id: Machine.ConnectionID, loop: EventLoop, job: RequestJob, outcome: Connector.Outcome
    ) {
        let connecting = lock.withLock { connections[id] }
        if case .connecting(let connector, _) = connecting { job.record.noteConnect(connector.times) }
        switch outcome {
        case .failed(let failure):
            if let connecting { release(connecting, isReusable: false) }
            job.finish(job.wasCancelled ? .cancelled : failure)
        case .opened(let opened):
            #if canImport(CNghttp2)
            if opened.speaksHTTP2 {
                let connection: HTTP2Connection
                do {
                    connection = try HTTP2Connection(
                        id: id, key: job.key, loop: loop, pool: self, stream: opened.stream, limits: job.limits,
                        facts: opened.facts)
                } catch {
                    opened.stream.close()
                    if let connecting { release(connecting, isReusable: false) }
                    return job.finish(.failed(error, wasReused: false))
                }
                report(
                    lock.withLock {
                        connections[id] = .http2(connection)
                        return observe(id)
                    })
                job.assign(.http2(connection))
                negotiated(.http2(connection), capacity: connection.capacity)
                return connection.start(with: job)
            }
            #endif
            let connection = HTTP1Connection(
                id: id, key: job.key, loop: loop, pool: self, stream: opened.stream, facts: opened.facts,
                bufferSize: bufferSize, pollWindow: pollWindow)
            report(
                lock.withLock {
                    connections[id] = .http1(connection)
                    return observe(id)
                })
            job.assign(.http1(connection))
            if negotiates(job.key) { negotiated(.http1(connection), capacity: 1) }
            connection.run(job)
        }
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
        let now = clock.now()
        var next: (job: RequestJob, connection: PooledConnection)?
        var waiter: RequestJob?
        var burstEnded = false
        var changes: [ObservedConnections<Machine.ConnectionID>.Change] = []
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
            case .replace(_, _, let request):
                connections[connection.id] = nil
                waiter = waiting.removeValue(forKey: request)
            case .close:
                connections[connection.id] = nil
            case .none:
                break
            }
            if let change = observe(connection.id) { changes.append(change) }
            if case .run(_, let target) = action, let change = observe(target) { changes.append(change) }
            return action
        }
        report(changes)
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
            guard let waiter else { return discard(target) }
            open(target, for: waiter)
        case .replace(_, let target, _):
            connection.closeIdle()
            guard let waiter else { return discard(target) }
            open(target, for: waiter)
        }
    }

    /// Forgets connection `id` (it closed while idle, could not be opened, or its waiter left).
    private func discard(_ id: Machine.ConnectionID) {
        report(
            lock.withLock {
                machine.closed(id)
                connections[id] = nil
                return observe(id)
            })
    }

    /// Forgets a connection that closed while idle (the server hung up).
    func discard(_ connection: PooledConnection) {
        discard(connection.id)
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

    /// Arms the pool's timer for `deadline` (loop-clock nanoseconds).
    private func arm(_ deadline: UInt64) {
        let loop = timerLoop
        loop.execute { [weak self] in
            _ = loop.schedule(at: deadline) { self?.timerFired(deadline) }
        }
    }

    /// Fails the waiting jobs whose deadline passed and closes connections idle for too long.
    private func timerFired(_ deadline: UInt64) {
        let now = clock.now()
        var changes: [ObservedConnections<Machine.ConnectionID>.Change] = []
        let (expired, closing, armTimer): ([(RequestJob, Bool)], [PooledConnection], UInt64?) = lock.withLock {
            let action = machine.timerFired(deadline: deadline, now: now)
            let expired = action.expired.compactMap { id in
                waiting.removeValue(forKey: id).map { ($0, machine.hostProtocol(for: $0.key) == .multiplexed) }
            }
            let closing = action.closing.compactMap { connections.removeValue(forKey: $0) }
            changes = action.closing.compactMap { observe($0) }
            return (expired, closing, action.armTimer)
        }
        report(changes)
        for (job, isMultiplexed) in expired { job.finish(.poolWaitTimedOut(isMultiplexed: isMultiplexed)) }
        for connection in closing { connection.closeIdle() }
        if let armTimer { arm(armTimer) }
    }

    /// Closes every idle connection now.
    func closeIdleConnections() {
        var changes: [ObservedConnections<Machine.ConnectionID>.Change] = []
        let idle: [PooledConnection] = lock.withLock {
            let ids = machine.closeIdleConnections()
            defer { changes = ids.compactMap { observe($0) } }
            return ids.compactMap { connections.removeValue(forKey: $0) }
        }
        report(changes)
        for connection in idle { connection.closeIdle() }
    }

    // MARK: Observers

    /// With the lock held: how connection `id` stands now for the observers (open while the pool holds it as an
    /// HTTP/1.1 or HTTP/2 connection, active while it carries a request), and the change to tell them, if any.
    private func observe(_ id: Machine.ConnectionID) -> ObservedConnections<Machine.ConnectionID>.Change? {
        guard !observers.isEmpty else { return nil }
        let state: ObservedConnection.State = machine.isCarrying(id) ? .active : .idle
        let now: ObservedConnection?
        switch connections[id] {
        case .http1(let connection): now = Self.observed(connection.key, protocolVersion: "1.1", state: state)
        #if canImport(CNghttp2)
        case .http2(let connection): now = Self.observed(connection.key, protocolVersion: "2", state: state)
        #endif
        case .connecting, nil: now = nil
        }
        return observed.update(id, to: now)
    }

    private static func observed(
        _ key: ConnectionKey, protocolVersion: String, state: ObservedConnection.State
    ) -> ObservedConnection {
        let host =
            key.host.hasPrefix("[") && key.host.hasSuffix("]") ? String(key.host.dropFirst().dropLast()) : key.host
        return ObservedConnection(
            host: host, port: key.port, isSecure: key.isSecure, protocolVersion: protocolVersion, state: state)
    }

    /// Tells the observers of `changes`, with the lock released.
    private func report(_ changes: [ObservedConnections<Machine.ConnectionID>.Change]) {
        for change in changes {
            for observer in observers { observer.connectionChanged(from: change.old, to: change.new) }
        }
    }

    /// Tells the observers of `change`, with the lock released.
    private func report(_ change: ObservedConnections<Machine.ConnectionID>.Change?) {
        guard let change else { return }
        report([change])
    }

    // MARK: HTTP/2

    #if canImport(CNghttp2)
    /// An HTTP/2 connection's server changed how many streams it allows at once: waiters take the room it gained.
    func capacityChanged(_ connection: HTTP2Connection, to capacity: Int) {
        var change: ObservedConnections<Machine.ConnectionID>.Change?
        let started: [RequestJob] = lock.withLock {
            defer { change = observe(connection.id) }
            return machine.capacityChanged(connection.id, to: capacity).compactMap { waiting.removeValue(forKey: $0) }
        }
        report(change)
        for job in started {
            job.assign(.http2(connection))
            connection.run(job)
        }
    }

    /// An HTTP/2 connection's server is going away: the connection takes no new requests. Returns whether it carries
    /// none now, when it closes at once.
    func goingAway(_ connection: HTTP2Connection) -> Bool {
        let (isIdle, change) = lock.withLock {
            let isIdle = machine.goingAway(connection.id)
            if isIdle { connections[connection.id] = nil }
            return (isIdle, observe(connection.id))
        }
        report(change)
        return isIdle
    }
    #endif

    /// A new connection knows its protocol: waiters run on it up to `capacity`, and those left over open connections
    /// of their own.
    private func negotiated(_ connection: PooledConnection, capacity: Int) {
        let now = clock.now()
        var created: [(Machine.ConnectionID, RequestJob)] = []
        var change: ObservedConnections<Machine.ConnectionID>.Change?
        let started: [RequestJob] = lock.withLock {
            let action = machine.negotiated(connection.id, capacity: capacity, now: now)
            for pair in action.create {
                guard let job = waiting.removeValue(forKey: pair.request) else { continue }
                created.append((pair.connection, job))
            }
            defer { change = observe(connection.id) }
            return action.run.compactMap { waiting.removeValue(forKey: $0) }
        }
        report(change)
        for job in started {
            job.assign(connection)
            connection.run(job)
        }
        for (id, job) in created { open(id, for: job) }
    }
}
