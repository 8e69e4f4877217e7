/// Everything before a connection's first request byte, with no I/O and no clock: looking the host up, trying its
/// addresses in turn (each within the connect timeout), the stream's handshakes (a proxy's tunnel, TLS and its ALPN),
/// within the connect timeout too, and the request's own deadline over all of it. Each event is one mutating call;
/// its result is the action the ``Connector`` carries out.
///
/// ```
/// idle ─► resolving ─► connecting(address 1 … n) ─► handshaking ─► connected
///   └───── (an IP literal) ─────┘         └─ each failure or timeout: the next address; after the last: failed
/// ```
///
/// Events that come after the end (a late lookup, a timer that fired as the connector gave up) are no faults: the
/// connector's lookups and timers run apart from it, and they change nothing then. Any other event the state cannot
/// take stops a debug build and fails the connection with ``Failure/unexpected(_:)``.
///
/// ```swift
/// var machine = ConnectorStateMachine()
/// machine.start(addresses: nil)               // .resolve
/// machine.resolved(.success([address]))       // .connect(address)
/// machine.attemptConnected()                  // .handshake
/// machine.handshakeFinished()                 // .succeed
/// ```
struct ConnectorStateMachine: Sendable, Equatable {
    /// Where the connector is.
    enum State: Sendable, Equatable {
        /// Not started.
        case idle
        /// Looking the host up.
        case resolving
        /// Connecting to `addresses[current]`; those after it wait their turn, `lastFailure` says why the one before
        /// failed.
        case connecting(addresses: [NetworkSocket.Address], current: Int, lastFailure: NetworkSocket.Failure?)
        /// The socket is connected: the stream's handshakes run.
        case handshaking
        /// The stream is ready for the first request.
        case connected
        /// The connector gave up (or was cancelled).
        case failed
    }

    /// What to do after an event.
    enum Action: Sendable, Equatable {
        /// Nothing now.
        case none
        /// Look the host up.
        case resolve
        /// Close any earlier attempt's socket, then start connecting to this address (within the connect timeout).
        case connect(NetworkSocket.Address)
        /// Go on with the stream's handshakes (within the connect timeout, from when the socket connected).
        case handshake
        /// The stream is ready: hand it over.
        case succeed
        /// Close whatever is open and end with this failure.
        case fail(Failure)
    }

    /// Why no connection came of it.
    enum Failure: Sendable, Equatable {
        /// The host did not resolve, or no address could be connected to (the last attempt's failure; `.timedOut`
        /// when it took longer than the connect timeout).
        case couldNotConnect(NetworkSocket.Failure)
        /// A handshake failed; the connector holds its error.
        case handshakeFailed
        /// The handshakes took longer than the connect timeout.
        case handshakeTimedOut
        /// The request's own deadline passed first.
        case requestTimedOut
        /// The request was cancelled.
        case cancelled
        /// An event the machine could not take in its state: a fault of the connector's own.
        case unexpected(String)
    }

    private(set) var state = State.idle

    /// Whether the connector ended, one way or the other.
    var isFinished: Bool { state == .connected || state == .failed }

    /// Starts: connects to the addresses when the host needed no lookup (or fails when they did not resolve), looks
    /// it up otherwise (`addresses` nil).
    mutating func start(addresses: Result<[NetworkSocket.Address], NetworkSocket.Failure>?) -> Action {
        guard state == .idle else { return unexpected("start") }
        switch addresses {
        case nil:
            state = .resolving
            return .resolve
        case .success(let addresses)?:
            return connect(to: addresses)
        case .failure(let failure)?:
            return fail(.couldNotConnect(failure))
        }
    }

    /// The lookup ended.
    mutating func resolved(_ result: Result<[NetworkSocket.Address], NetworkSocket.Failure>) -> Action {
        if isFinished { return .none }
        guard state == .resolving else { return unexpected("a lookup ended") }
        switch result {
        case .success(let addresses): return connect(to: addresses)
        case .failure(let failure): return fail(.couldNotConnect(failure))
        }
    }

    /// The current attempt connected.
    mutating func attemptConnected() -> Action {
        guard case .connecting = state else { return unexpected("an attempt connected") }
        state = .handshaking
        return .handshake
    }

    /// The current attempt failed (at once, or when the socket became writable): the next address is tried.
    mutating func attemptFailed(_ failure: NetworkSocket.Failure) -> Action {
        guard case .connecting(let addresses, let current, _) = state else { return unexpected("an attempt failed") }
        return next(addresses, after: current, failure: failure)
    }

    /// The current attempt took longer than the connect timeout: the next address is tried.
    mutating func attemptTimedOut() -> Action {
        if isFinished { return .none }
        guard case .connecting(let addresses, let current, _) = state else {
            return unexpected("an attempt timed out")
        }
        return next(addresses, after: current, failure: .timedOut)
    }

    /// The handshakes are done: the stream carries requests from here on.
    mutating func handshakeFinished() -> Action {
        guard state == .handshaking else { return unexpected("the handshake finished") }
        state = .connected
        return .succeed
    }

    /// A handshake failed.
    mutating func handshakeFailed() -> Action {
        guard state == .handshaking else { return unexpected("the handshake failed") }
        return fail(.handshakeFailed)
    }

    /// The handshakes took longer than the connect timeout.
    mutating func handshakeTimedOut() -> Action {
        if isFinished { return .none }
        guard state == .handshaking else { return unexpected("the handshake timed out") }
        return fail(.handshakeTimedOut)
    }

    /// The request's deadline passed.
    mutating func deadlinePassed() -> Action {
        if isFinished { return .none }
        guard state != .idle else { return unexpected("the deadline passed") }
        return fail(.requestTimedOut)
    }

    /// The request was cancelled.
    mutating func cancelled() -> Action {
        if isFinished { return .none }
        return fail(.cancelled)
    }

    private mutating func connect(to addresses: [NetworkSocket.Address]) -> Action {
        guard let first = addresses.first else { return fail(.couldNotConnect(.hostNotFound("no address"))) }
        state = .connecting(addresses: addresses, current: 0, lastFailure: nil)
        return .connect(first)
    }

    private mutating func next(
        _ addresses: [NetworkSocket.Address], after current: Int, failure: NetworkSocket.Failure
    ) -> Action {
        let following = current + 1
        guard following < addresses.count else { return fail(.couldNotConnect(failure)) }
        state = .connecting(addresses: addresses, current: following, lastFailure: failure)
        return .connect(addresses[following])
    }

    private mutating func fail(_ failure: Failure) -> Action {
        state = .failed
        return .fail(failure)
    }

    private mutating func unexpected(_ event: String) -> Action {
        let failure = "\(event) while \(state)"
        assertionFailure("ConnectorStateMachine: \(failure)")
        return fail(.unexpected(failure))
    }
}
