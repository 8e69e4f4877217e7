#if ServiceLifecycle
/// The calls of a ``ClientService``, as a value: which are in flight, whether new ones are taken, and when the last
/// one ended after the service closed. ``ClientService`` holds it under its lock and does what it answers.
struct CallRegistry {
    /// Whether a shutdown has begun: ``begin()`` refuses new calls.
    private(set) var isClosed = false
    /// Whether the calls in flight were cancelled (the deadline passed): a call attached after that is cancelled too.
    private var isCancelled = false
    private var nextID: UInt64 = 0
    /// The calls in flight, each with what cancels it once it is attached.
    private var calls: [UInt64: (@Sendable () -> Void)?] = [:]
    /// Signalled once the registry is closed and no call is in flight.
    let drained = DrainSignal()

    /// How many calls are in flight.
    var count: Int { calls.count }

    /// A new call's identifier, or nil when the registry is closed.
    mutating func begin() -> UInt64? {
        guard !isClosed else { return nil }
        nextID += 1
        calls[nextID] = .some(nil)
        return nextID
    }

    /// Attaches what cancels call `id`; false when the calls were cancelled meanwhile, so the caller cancels it.
    mutating func attach(_ id: UInt64, cancel: @escaping @Sendable () -> Void) -> Bool {
        guard !isCancelled else { return false }
        if calls[id] != nil { calls[id] = cancel }
        return true
    }

    /// Ends call `id`; returns the signal to fire when it was the last one after closing.
    mutating func end(_ id: UInt64) -> DrainSignal? {
        calls[id] = nil
        return isClosed && calls.isEmpty ? drained : nil
    }

    /// Refuses new calls from now on; returns the signal that fires when the last call in flight ends (already
    /// fired when there is none).
    mutating func close() -> DrainSignal {
        isClosed = true
        if calls.isEmpty { drained.signal() }
        return drained
    }

    /// What cancels each call in flight; a call attached later is cancelled at once.
    mutating func cancelAll() -> [@Sendable () -> Void] {
        isCancelled = true
        return calls.values.compactMap { $0 }
    }
}
#endif
