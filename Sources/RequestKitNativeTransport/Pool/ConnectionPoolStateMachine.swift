/// The bookkeeping of a connection pool, with no I/O and no clock: which connections each host has, how many
/// requests each carries, which requests wait for one, and when the next deadline falls. Each event (a request, a
/// connection released, a waiter cancelled, the timer fired, an idle connection closed, shutdown) is one mutating
/// call, and its result says what to do: run a request on a connection, open a connection, fail a request, close
/// connections, arm the timer. The pool that owns it executes those actions.
///
/// Connections have a capacity: an HTTP/1.1 connection carries one request at a time, a multiplexed one several.
/// A host opens at most ``Configuration/maxConnectionsPerHost`` connections; requests past their capacity wait in
/// order, each until its own deadline. Idle connections are reused newest first and closed once idle for
/// ``Configuration/idleTimeout``.
///
/// ```swift
/// var pool = ConnectionPoolStateMachine<String>(configuration: .init(maxConnectionsPerHost: 1, idleTimeout: 60))
/// let first = pool.request(.init(1), key: "a.example", deadline: nil, now: 0)   // .createConnection(c0)
/// let second = pool.request(.init(2), key: "a.example", deadline: 5, now: 0)    // .wait(armTimer: 5)
/// let next = pool.released(c0, isReusable: true, now: 1)                        // .run(request 2, on: c0)
/// ```
///
/// A connection may learn its protocol only once it is open (TLS's ALPN chooses between HTTP/2 and HTTP/1.1): a
/// request that `negotiates` does not open a second connection to a host while one is negotiating and the host may
/// multiplex, so a burst to a new HTTP/2 host opens one connection, not one per request
/// (``negotiated(_:capacity:now:)`` then starts them on it, and opens more only when it is full).
///
/// Times are nanoseconds on one monotonic clock that the owner reads; the machine never reads a clock itself.
struct ConnectionPoolStateMachine<Key: Hashable & Sendable>: Sendable {
    /// Limits and timeouts.
    struct Configuration: Sendable, Equatable {
        /// The most connections open (or opening) to one key at once.
        var maxConnectionsPerHost: Int
        /// How long a connection may stay idle before it is closed, in nanoseconds.
        var idleTimeout: UInt64
        /// How long, in nanoseconds, requests must have gone one at a time before a request counts as alone
        /// (``RequestAction/run(on:isAlone:)``): a request that is the only one in flight between others that
        /// overlap is one of many tasks taking turns, not a lone caller. 0: alone whenever it is the only one.
        var aloneAfterOverlap: UInt64 = 0
    }

    /// A connection of the pool.
    struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
        let value: Int
        init(_ value: Int) { self.value = value }
        var description: String { "c\(value)" }
    }

    /// A request submitted to the pool.
    struct RequestID: Hashable, Sendable, CustomStringConvertible {
        let value: Int
        init(_ value: Int) { self.value = value }
        var description: String { "r\(value)" }
    }

    /// Why the pool failed a request it held.
    enum Failure: Sendable, Equatable {
        /// No connection came free before the request's deadline.
        case waitTimedOut
        /// The pool shut down with the request waiting.
        case shutdown
    }

    /// What to do with a request just submitted.
    enum RequestAction: Sendable, Equatable {
        /// Run it on this open connection, which has room; `isAlone` says whether it is now the one request in
        /// flight in the whole pool, and no two requests were in flight at once for
        /// ``Configuration/aloneAfterOverlap``.
        case run(on: ConnectionID, isAlone: Bool)
        /// Open this new connection (already counted) and run the request on it.
        case createConnection(ConnectionID)
        /// Close this idle connection (already forgotten) to make room, then open the new one (already counted) and
        /// run the request on it: a request that must go on a fresh connection, at the host's limit.
        case replaceConnection(closing: ConnectionID, creating: ConnectionID)
        /// The request waits; arm the timer for this deadline when there is one.
        case wait(armTimer: UInt64?)
        /// Fail it: the pool is shut down.
        case fail(Failure)
    }

    /// What to do after a connection finished a request.
    enum ReleaseAction: Sendable, Equatable {
        /// Nothing to run; arm the timer for this deadline when there is one (an idle connection's expiry).
        case none(armTimer: UInt64?)
        /// Run this waiting request on this connection (the released one when it stays open).
        case run(RequestID, on: ConnectionID)
        /// Open this new connection (in place of one that closed) and run this waiting request on it.
        case createConnection(ConnectionID, for: RequestID)
        /// Close the released connection (already forgotten), open this new one (already counted) and run this
        /// waiting request on it: the request must go on a fresh connection.
        case replace(closing: ConnectionID, creating: ConnectionID, for: RequestID)
        /// Close the connection: the pool is shut down.
        case close
    }

    /// What the timer's firing calls for.
    struct TimerAction: Sendable, Equatable {
        /// Waiting requests whose deadline passed: fail each with ``Failure/waitTimedOut``.
        var expired: [RequestID] = []
        /// Idle connections past the idle timeout: close them.
        var closing: [ConnectionID] = []
        /// The next deadline to arm the timer for, if any.
        var armTimer: UInt64?
    }

    /// A connection's numbers; its key is its host's (``hosts``), so that a change copies no key.
    private struct Connection: Sendable {
        /// Its host's slot in ``hosts``.
        let host: Int
        var capacity: Int
        var inUse: Int
        /// When the connection last became idle.
        var idleSince: UInt64
        /// Whether it is open but its protocol (and so its capacity) is not known yet.
        var isNegotiating = false
        /// Whether it takes no new requests (its server is going away); it closes once its last one ends.
        var isDraining = false
    }

    /// What a host's connections turned out to speak.
    enum HostProtocol: Sendable, Equatable {
        /// Not known yet: no connection to it negotiated.
        case unknown
        /// One request at a time per connection (HTTP/1.1).
        case serial
        /// Many requests per connection (HTTP/2).
        case multiplexed
    }

    /// What to do once a connection knows its protocol, or failed before it did.
    struct NegotiationAction: Sendable, Equatable {
        /// Waiting requests to run on the connection.
        var run: [RequestID] = []
        /// New connections to open (already counted), each with the waiting request it runs.
        var create: [Pair] = []

        struct Pair: Sendable, Equatable {
            let connection: ConnectionID
            let request: RequestID
        }
    }

    private struct Waiter: Sendable {
        let id: RequestID
        let deadline: UInt64?
        /// Whether it must go on a connection opened for it.
        var isFresh = false
    }

    private struct Host: Sendable {
        let key: Key
        /// Connections open or opening to this key.
        var connections: Set<ConnectionID> = []
        /// Connections with room for another request, most recently freed last.
        var available: [ConnectionID] = []
        /// What its connections speak.
        var kind = HostProtocol.unknown
        /// Whether its connections learn their protocol once open (its requests said so): until the host is known to
        /// speak HTTP/1.1, each new connection negotiates.
        var negotiates = false
        /// Its connections whose protocol is not known yet.
        var negotiating = 0
        /// Requests waiting for room, in arrival order from `waitersStart` on.
        var waiters: [Waiter] = []
        var waitersStart = 0

        var waitingCount: Int { waiters.count - waitersStart }

        mutating func popWaiter() -> Waiter? {
            guard waitersStart < waiters.count else { return nil }
            let waiter = waiters[waitersStart]
            waitersStart += 1
            if waitersStart == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                waitersStart = 0
            } else if waitersStart >= 64, waitersStart * 2 >= waiters.count {
                waiters.removeFirst(waitersStart)
                waitersStart = 0
            }
            return waiter
        }
    }

    /// The hosts, each in a slot its connections refer to by number: a request looks its key up once, and what
    /// follows (taking a connection, releasing it) goes by the slot, without hashing the key again.
    private struct HostTable: Sendable {
        private var slots: [Host?] = []
        private var free: [Int] = []
        private var index: [Key: Int] = [:]

        /// The slot of `key`'s host, if it has one.
        func slot(of key: Key) -> Int? { index[key] }

        /// The host in `slot`.
        subscript(slot slot: Int) -> Host? {
            // Borrowed and changed in place: a get and a set would copy the host (its key, its arrays) every time.
            _read { yield slots[slot] }
            _modify { yield &slots[slot] }
        }

        /// `key`'s host.
        subscript(key: Key) -> Host? { index[key].flatMap { slots[$0] } }

        /// The slots that hold a host.
        var occupied: [Int] { slots.indices.filter { slots[$0] != nil } }

        /// The slot of `key`'s host, made when it has none.
        mutating func slotMaking(_ key: Key) -> Int {
            if let slot = index[key] { return slot }
            let slot: Int
            if let reused = free.popLast() {
                slot = reused
                slots[slot] = Host(key: key)
            } else {
                slot = slots.count
                slots.append(Host(key: key))
            }
            index[key] = slot
            return slot
        }

        /// Forgets the host in `slot`.
        mutating func remove(_ slot: Int) {
            guard let host = slots[slot] else { return }
            index[host.key] = nil
            slots[slot] = nil
            free.append(slot)
        }
    }

    let configuration: Configuration
    private var hosts = HostTable()
    private var connections: [ConnectionID: Connection] = [:]
    private var nextConnection = 0
    /// Connections carrying at least one request, over all hosts.
    private(set) var busyConnectionCount = 0
    /// Requests running on connections, over all hosts: the busy connections' requests, many to one over HTTP/2.
    private(set) var busyRequestCount = 0
    /// The deadline the timer is armed for; a firing for another deadline was superseded and is ignored.
    private(set) var timerDeadline: UInt64?
    private(set) var isShutDown = false
    /// When a request last found another in flight, or had to wait.
    private var lastOverlap: UInt64?

    init(configuration: Configuration) {
        var configuration = configuration
        configuration.maxConnectionsPerHost = max(1, configuration.maxConnectionsPerHost)
        self.configuration = configuration
    }

    /// How many connections are open (or opening).
    var connectionCount: Int { connections.count }

    /// How many connections carry no request.
    var idleCount: Int { connections.values.reduce(0) { $0 + ($1.inUse == 0 ? 1 : 0) } }

    /// The connections that carry no request.
    var idleConnections: [ConnectionID] { connections.filter { $0.value.inUse == 0 }.map(\.key) }

    /// How many requests wait for a connection to `key`.
    func waitingCount(for key: Key) -> Int { hosts[key]?.waitingCount ?? 0 }

    /// What the connections to `key` speak, as far as they know.
    func hostProtocol(for key: Key) -> HostProtocol { hosts[key]?.kind ?? .unknown }

    /// Whether connection `id` carries at least one request.
    func isCarrying(_ id: ConnectionID) -> Bool { (connections[id]?.inUse ?? 0) > 0 }

    /// The key a connection serves.
    func key(of connection: ConnectionID) -> Key? { connections[connection].flatMap { hosts[slot: $0.host]?.key } }

    // MARK: Events

    /// A request for `key`: it runs on a connection with room (the most recently freed), on a new connection while
    /// the host is under its limit, or waits until `deadline`. A request that `negotiates` (its connection learns its
    /// protocol once open) waits while another connection to a host that may multiplex is negotiating. A `fresh`
    /// request (sent again after a kept-alive connection closed before answering) runs only on a connection opened
    /// for it: at the host's limit, an idle connection closes to make room, or it waits for one to be released.
    mutating func request(
        _ id: RequestID, key: Key, deadline: UInt64?, now: UInt64, negotiates: Bool = false, fresh: Bool = false
    ) -> RequestAction {
        if isShutDown { return .fail(.shutdown) }
        defer { if busyRequestCount > 1 { lastOverlap = now } }
        let slot = hosts.slot(of: key)
        if !fresh, let slot, let connection = hosts[slot: slot]?.available.last {
            let isAlone = take(connection) && hasBeenQuiet(now: now)
            return .run(on: connection, isAlone: isAlone)
        }
        let kind = slot.flatMap { hosts[slot: $0]?.kind } ?? .unknown
        let awaitsProtocol = negotiates && kind != .serial && (slot.flatMap { hosts[slot: $0]?.negotiating } ?? 0) > 0
        let count = slot.flatMap { hosts[slot: $0]?.connections.count } ?? 0
        if !awaitsProtocol, count < configuration.maxConnectionsPerHost {
            let connection = open(key, now: now, negotiates: negotiates)
            take(connection)
            return .createConnection(connection)
        }
        if fresh, let slot, let idle = hosts[slot: slot]?.available.first(where: { connections[$0]?.inUse == 0 }) {
            remove(idle)
            let connection = open(key, now: now, negotiates: negotiates)
            take(connection)
            return .replaceConnection(closing: idle, creating: connection)
        }
        hosts[slot: hosts.slotMaking(key)]?.waiters.append(Waiter(id: id, deadline: deadline, isFresh: fresh))
        lastOverlap = now
        return .wait(armTimer: deadline.flatMap { arm($0) })
    }

    /// Whether no two requests were in flight at once for ``Configuration/aloneAfterOverlap`` until `now`.
    private func hasBeenQuiet(now: UInt64) -> Bool {
        guard let lastOverlap else { return true }
        return now >= lastOverlap && now - lastOverlap >= configuration.aloneAfterOverlap
    }

    /// A connection finished one of its requests: the first waiter for its key takes the room (on a new connection
    /// when this one closed), or the connection goes idle.
    mutating func released(_ id: ConnectionID, isReusable: Bool, now: UInt64) -> ReleaseAction {
        guard var connection = connections[id] else { return .none(armTimer: nil) }
        let slot = connection.host
        if connection.isDraining {
            return releasedDraining(id, now: now)
        }
        if connection.inUse >= connection.capacity { hosts[slot: slot]?.available.append(id) }
        if connection.inUse > 0 { busyRequestCount -= 1 }
        connection.inUse = max(0, connection.inUse - 1)
        if connection.inUse == 0 { busyConnectionCount -= 1 }
        connection.idleSince = now
        connections[id] = connection
        if !isReusable { remove(id) }
        if !isShutDown, let waiter = hosts[slot: slot]?.popWaiter() {
            if isReusable, waiter.isFresh, let key = hosts[slot: slot]?.key {
                remove(id)
                let fresh = open(key, now: now)
                take(fresh)
                return .replace(closing: id, creating: fresh, for: waiter.id)
            }
            if isReusable {
                take(id)
                return .run(waiter.id, on: id)
            }
            guard let key = hosts[slot: slot]?.key else { return .none(armTimer: nil) }
            let fresh = open(key, now: now)
            take(fresh)
            return .createConnection(fresh, for: waiter.id)
        }
        guard isReusable else {
            dropHostIfUnused(slot)
            return .none(armTimer: nil)
        }
        if isShutDown, connection.inUse == 0 {
            remove(id)
            dropHostIfUnused(slot)
            return .close
        }
        return .none(armTimer: connection.inUse == 0 ? arm(now &+ configuration.idleTimeout) : nil)
    }

    /// A connection that never carried a request (it could not be opened) or closed while idle: it is forgotten.
    mutating func closed(_ id: ConnectionID) {
        guard let connection = connections[id] else { return }
        remove(id)
        dropHostIfUnused(connection.host)
    }

    /// An open connection can now carry `capacity` requests at once (an HTTP/2 server's setting): waiters for its
    /// key take the room it gained, in order. Returns the requests to run on it.
    mutating func capacityChanged(_ id: ConnectionID, to capacity: Int) -> [RequestID] {
        guard var connection = connections[id] else { return [] }
        let slot = connection.host
        let hadRoom = connection.inUse < connection.capacity
        connection.capacity = max(1, capacity)
        connections[id] = connection
        let hasRoom = connection.inUse < connection.capacity
        if hadRoom, !hasRoom { hosts[slot: slot]?.available.removeAll { $0 == id } }
        if !hadRoom, hasRoom { hosts[slot: slot]?.available.append(id) }
        var started: [RequestID] = []
        while let current = connections[id], current.inUse < current.capacity, !isShutDown,
            let waiter = hosts[slot: slot]?.popWaiter()
        {
            take(id)
            started.append(waiter.id)
        }
        return started
    }

    /// Connection `id` learned its protocol: it carries `capacity` requests at once (1 for HTTP/1.1; an HTTP/2
    /// server's `MAX_CONCURRENT_STREAMS`). The host's kind is known from now on. Waiters take its room in order; those
    /// left over open connections of their own up to the host's limit: one each on an HTTP/1.1 host, one for the next
    /// of them on an HTTP/2 host (which negotiates in turn).
    mutating func negotiated(_ id: ConnectionID, capacity: Int, now: UInt64) -> NegotiationAction {
        guard var connection = connections[id] else { return NegotiationAction() }
        // One that was not expected to negotiate (its host was thought to speak HTTP/1.1) changes its capacity alone.
        guard connection.isNegotiating else { return NegotiationAction(run: capacityChanged(id, to: capacity)) }
        let slot = connection.host
        connection.isNegotiating = false
        connections[id] = connection
        hosts[slot: slot]?.negotiating -= 1
        hosts[slot: slot]?.kind = capacity > 1 ? .multiplexed : .serial
        var action = NegotiationAction(run: capacityChanged(id, to: capacity))
        action.create = openForWaiters(slot, now: now)
        return action
    }

    /// Connection `id` closed before it learned its protocol (it could not be opened, or its handshake failed): it
    /// is forgotten, and a waiter that was waiting for it opens a connection of its own.
    mutating func negotiationFailed(_ id: ConnectionID, now: UInt64) -> NegotiationAction {
        guard let connection = connections[id] else { return NegotiationAction() }
        let slot = connection.host
        remove(id)
        var action = NegotiationAction()
        action.create = openForWaiters(slot, now: now)
        dropHostIfUnused(slot)
        return action
    }

    /// Connection `id`'s server is going away: it takes no new requests and closes once its last one ends
    /// (``released(_:isReusable:now:)`` then answers ``ReleaseAction/close``). Returns whether it is idle now: then
    /// close it at once.
    mutating func goingAway(_ id: ConnectionID) -> Bool {
        guard var connection = connections[id] else { return false }
        connection.isDraining = true
        connections[id] = connection
        if let index = hosts[slot: connection.host]?.available.lastIndex(of: id) {
            hosts[slot: connection.host]?.available.remove(at: index)
        }
        guard connection.inUse == 0 else { return false }
        remove(id)
        dropHostIfUnused(connection.host)
        return true
    }

    /// A waiting request was cancelled: true when it was waiting (it now leaves the queue; fail it as cancelled),
    /// false when it holds a connection already (its connection handles the cancellation).
    mutating func cancelled(_ id: RequestID, key: Key) -> Bool {
        guard let slot = hosts.slot(of: key), var host = hosts[slot: slot],
            let index = host.waiters[host.waitersStart...].firstIndex(where: { $0.id == id })
        else { return false }
        host.waiters.remove(at: index)
        hosts[slot: slot] = host
        return true
    }

    /// The timer armed for `deadline` fired at `now`: waiters whose deadline passed fail, idle connections past the
    /// idle timeout close, and the timer is armed again for the soonest deadline left. A firing for a deadline
    /// that a sooner one superseded does nothing.
    mutating func timerFired(deadline: UInt64, now: UInt64) -> TimerAction {
        guard deadline == timerDeadline else { return TimerAction() }
        timerDeadline = nil
        var action = TimerAction()
        var soonest: UInt64?
        for slot in hosts.occupied {
            guard var host = hosts[slot: slot] else { continue }
            if host.waitingCount > 0 {
                var kept: [Waiter] = []
                kept.reserveCapacity(host.waitingCount)
                for waiter in host.waiters[host.waitersStart...] {
                    if let deadline = waiter.deadline {
                        if deadline <= now {
                            action.expired.append(waiter.id)
                            continue
                        }
                        soonest = min(soonest ?? .max, deadline)
                    }
                    kept.append(waiter)
                }
                host.waiters = kept
                host.waitersStart = 0
            }
            var closing: [ConnectionID] = []
            for id in host.available {
                guard let connection = connections[id], connection.inUse == 0 else { continue }
                let expiry = connection.idleSince &+ configuration.idleTimeout
                if expiry <= now {
                    closing.append(id)
                } else {
                    soonest = min(soonest ?? .max, expiry)
                }
            }
            hosts[slot: slot] = host
            for id in closing { remove(id) }
            action.closing += closing
            dropHostIfUnused(slot)
        }
        action.armTimer = soonest.flatMap { arm($0) }
        return action
    }

    /// Closes every idle connection now: returns them.
    mutating func closeIdleConnections() -> [ConnectionID] {
        let idle = idleConnections
        for id in idle {
            let slot = connections[id]?.host
            remove(id)
            if let slot { dropHostIfUnused(slot) }
        }
        return idle
    }

    /// Shuts the pool down: every waiting request fails, idle connections close now, and busy ones close when
    /// released. Returns the waiters to fail and the connections to close.
    mutating func shutdown() -> (failing: [RequestID], closing: [ConnectionID]) {
        isShutDown = true
        var failing: [RequestID] = []
        for slot in hosts.occupied {
            while let waiter = hosts[slot: slot]?.popWaiter() { failing.append(waiter.id) }
        }
        return (failing, closeIdleConnections())
    }

    // MARK: Bookkeeping

    /// A request ended on draining connection `id`: it closes once it carries none, and its room goes to no one;
    /// a waiter opens a connection of its own.
    private mutating func releasedDraining(_ id: ConnectionID, now: UInt64) -> ReleaseAction {
        guard var connection = connections[id] else { return .none(armTimer: nil) }
        let slot = connection.host
        if connection.inUse > 0 { busyRequestCount -= 1 }
        connection.inUse = max(0, connection.inUse - 1)
        if connection.inUse == 0 { busyConnectionCount -= 1 }
        connections[id] = connection
        guard connection.inUse == 0 else { return .none(armTimer: nil) }
        remove(id)
        // A waiter opens a connection of its own, unless one to a host that may multiplex is negotiating: it waits
        // for that one, as a new request would.
        if !isShutDown, let host = hosts[slot: slot], host.connections.count < configuration.maxConnectionsPerHost,
            host.kind == .serial || host.negotiating == 0, let waiter = hosts[slot: slot]?.popWaiter()
        {
            let fresh = open(host.key, now: now)
            take(fresh)
            // The draining connection closes itself once its last request ended (its server is going away).
            return .createConnection(fresh, for: waiter.id)
        }
        dropHostIfUnused(slot)
        return .close
    }

    /// Opens connections for the waiters of the host in `slot` while it is under its limit and no connection to it
    /// negotiates a protocol that may multiplex.
    private mutating func openForWaiters(_ slot: Int, now: UInt64) -> [NegotiationAction.Pair] {
        var created: [NegotiationAction.Pair] = []
        while !isShutDown, let host = hosts[slot: slot], host.waitingCount > 0,
            host.connections.count < configuration.maxConnectionsPerHost,
            host.kind == .serial || host.negotiating == 0,
            let waiter = hosts[slot: slot]?.popWaiter()
        {
            let fresh = open(host.key, now: now)
            take(fresh)
            created.append(NegotiationAction.Pair(connection: fresh, request: waiter.id))
        }
        return created
    }

    /// Opens a connection to `key`, which negotiates its protocol when the host's requests do (`negotiates`: this
    /// request says so) and the host is not known to speak HTTP/1.1.
    private mutating func open(_ key: Key, now: UInt64, negotiates: Bool = false) -> ConnectionID {
        let id = ConnectionID(nextConnection)
        nextConnection += 1
        let slot = hosts.slotMaking(key)
        if negotiates { hosts[slot: slot]?.negotiates = true }
        let isNegotiating = hosts[slot: slot].map { $0.negotiates && $0.kind != .serial } ?? false
        connections[id] = Connection(host: slot, capacity: 1, inUse: 0, idleSince: now, isNegotiating: isNegotiating)
        if isNegotiating { hosts[slot: slot]?.negotiating += 1 }
        hosts[slot: slot]?.connections.insert(id)
        hosts[slot: slot]?.available.append(id)
        return id
    }

    /// One more request on `id`, which has room; returns whether it is now the only request in flight.
    @discardableResult
    private mutating func take(_ id: ConnectionID) -> Bool {
        guard let connection = connections[id] else { return false }
        let inUse = connection.inUse + 1
        if inUse == 1 { busyConnectionCount += 1 }
        busyRequestCount += 1
        connections[id]?.inUse = inUse
        if inUse >= connection.capacity, let index = hosts[slot: connection.host]?.available.lastIndex(of: id) {
            hosts[slot: connection.host]?.available.remove(at: index)
        }
        return busyConnectionCount == 1 && inUse == 1
    }

    /// Forgets a connection; one still carrying requests no longer counts as busy.
    private mutating func remove(_ id: ConnectionID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        if connection.inUse > 0 { busyConnectionCount -= 1 }
        busyRequestCount -= connection.inUse
        if connection.isNegotiating { hosts[slot: connection.host]?.negotiating -= 1 }
        hosts[slot: connection.host]?.connections.remove(id)
        if let index = hosts[slot: connection.host]?.available.lastIndex(of: id) {
            hosts[slot: connection.host]?.available.remove(at: index)
        }
    }

    private mutating func dropHostIfUnused(_ slot: Int) {
        guard let host = hosts[slot: slot], host.connections.isEmpty, host.waitingCount == 0 else { return }
        hosts.remove(slot)
    }

    /// Arms the timer for `deadline` when nothing sooner is armed: the deadline to arm, or nil.
    private mutating func arm(_ deadline: UInt64) -> UInt64? {
        if let timerDeadline, timerDeadline <= deadline { return nil }
        timerDeadline = deadline
        return deadline
    }
}
