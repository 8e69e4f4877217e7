/// The pool's open connections as its observers last heard of them: each update says how a connection stands now
/// (nil: closed, or not open yet) and returns the change to report, or nil when the observers know already, so that
/// a connection opens once, closes once, and a state is never reported twice. A value guarded by the pool's lock.
///
/// ```swift
/// var observed = ObservedConnections<Int>()
/// observed.update(1, to: active)   // (nil, active): opened
/// observed.update(1, to: active)   // nil: nothing changed
/// observed.update(1, to: nil)      // (active, nil): closed
/// ```
struct ObservedConnections<ID: Hashable & Sendable>: Sendable {
    /// A change to report.
    struct Change: Sendable, Equatable {
        let old: ObservedConnection?
        let new: ObservedConnection?
    }

    private var connections: [ID: ObservedConnection] = [:]

    /// How many connections are open.
    var count: Int { connections.count }

    /// Connection `id` stands as `connection` now; returns the change, nil when there is none.
    mutating func update(_ id: ID, to connection: ObservedConnection?) -> Change? {
        let old = connections[id]
        guard old != connection else { return nil }
        connections[id] = connection
        return Change(old: old, new: connection)
    }

    /// Every open connection closes (the pool is going): the changes to report.
    mutating func closeAll() -> [Change] {
        defer { connections = [:] }
        return connections.values.map { Change(old: $0, new: nil) }
    }
}
