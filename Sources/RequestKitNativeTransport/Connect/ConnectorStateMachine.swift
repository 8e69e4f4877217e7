import Foundation
import RequestKitConnect
import RequestKitModel

/// Everything before a connection's first request byte, with no I/O and no clock: the race to a connected socket
/// (both address families asked at once and their addresses tried as RFC 8305 says, which its
/// ``HappyEyeballsStateMachine`` decides), then the stream's handshakes (a proxy's tunnel, TLS and its ALPN) within the
/// connect timeout, and the request's own deadline over all of it. Each event is one mutating call; its result is
/// the actions the ``Connector`` carries out, in order.
///
/// ```
/// idle ─► racing (lookups and attempts, several sockets at once) ─► handshaking ─► connected
///   └── (an IP literal: no lookup) ──┘        └─ no attempt connected within the connect timeout: failed
/// ```
///
/// The connect timeout bounds the whole race, lookups included (the race's deadline, or the request's when that is
/// sooner); the handshakes get the connect timeout again from when the socket connected.
///
/// Events that come after the end, or for an attempt already over (a late lookup, a socket that connected as the
/// race was lost, a timer that fired as the connector gave up), are no faults: lookups, sockets and timers run apart
/// from it, and they change nothing then. Any other event the state cannot take stops a debug build and fails the
/// connection with ``Failure/unexpected(_:)``.
///
/// ```swift
/// var machine = ConnectorStateMachine(host: "example.com", port: 443, connectDeadline: now + 10_000_000_000)
/// machine.start(addresses: nil, now: now)                   // [.resolve(.ipv6), .resolve(.ipv4), .wakeRace(...)]
/// machine.resolved(.ipv6, .success([address]), now: now)  // [.connect(0, address), ...]
/// machine.attemptConnected(0, now: now)                    // [.handshake(0)]
/// machine.handshakeFinished()                              // [.succeed]
/// ```
struct ConnectorStateMachine: Sendable {
    /// Where the connector is.
    enum State: Sendable, Equatable {
        /// Not started.
        case idle
        /// Looking the host up and connecting to its addresses.
        case racing
        /// An attempt's socket connected: the stream's handshakes run over it.
        case handshaking(AttemptID)
        /// The stream is ready for the first request.
        case connected
        /// The connector gave up (or was cancelled).
        case failed
    }

    typealias AttemptID = HappyEyeballsStateMachine.AttemptID

    /// What to do after an event.
    enum Action: Sendable, Equatable {
        /// Ask for the host's addresses of one family; the answer comes back through ``resolved(_:_:now:)``.
        case resolve(SocketAddress.Family)
        /// Open a socket and start connecting it to the address; how it ends comes back through
        /// ``attemptConnected(_:now:)`` or ``attemptFailed(_:_:now:)``.
        case connect(AttemptID, SocketAddress)
        /// Close a pending attempt's socket: it lost the race, or the race is over.
        case close(AttemptID)
        /// Move the race's timer to this time (loop-clock nanoseconds); it fires into ``raceTimerFired(now:)``.
        case wakeRace(at: UInt64)
        /// The attempt connected: make the stream over its socket and run the handshakes (within the connect
        /// timeout, from now).
        case handshake(AttemptID)
        /// The stream is ready: hand it over.
        case succeed
        /// Close whatever is open and end with this failure.
        case fail(Failure)
    }

    /// Why no connection came of it.
    enum Failure: Sendable, Equatable {
        /// The host did not resolve, or its one address could not be connected to (`.timedOut` when the connect
        /// timeout passed first).
        case couldNotConnect(NetworkSocket.Failure)
        /// Several addresses were tried and none connected (or the connect timeout passed with one or more
        /// pending): the race names each address and how it ended. `requestDeadlineFirst`: the request's deadline,
        /// not the connect timeout, ended it.
        case raceFailed(ConnectRaceFailure, requestDeadlineFirst: Bool)
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
    /// The address race, which keeps every attempt and how it ended after it is over (for the metrics).
    private(set) var race: HappyEyeballsStateMachine
    /// Whether the race's deadline is the request's rather than the connect timeout's.
    private let requestDeadlineFirst: Bool

    /// A connector's machine for `host` and `port`.
    ///
    /// - Parameters:
    ///   - configuration: The race's resolution and attempt delays.
    ///   - connectDeadline: When the race gives up: the connect timeout from the start.
    ///   - requestDeadline: When the request gives up, if sooner (loop-clock nanoseconds); nil for never.
    init(
        host: String, port: Int, configuration: HappyEyeballsStateMachine.Configuration = .init(),
        connectDeadline: UInt64, requestDeadline: UInt64? = nil
    ) {
        let requestFirst = requestDeadline.map { $0 < connectDeadline } ?? false
        requestDeadlineFirst = requestFirst
        race = HappyEyeballsStateMachine(
            host: host, port: port, configuration: configuration,
            deadline: requestFirst ? requestDeadline ?? connectDeadline : connectDeadline)
    }

    /// Whether the connector ended, one way or the other.
    var isFinished: Bool { state == .connected || state == .failed }

    /// Every address tried, in order, and how each ended (or that it is pending).
    var addressAttempts: [ConnectAttemptRecord] { race.attempts }

    // MARK: Events

    /// Starts: races the known addresses (an IP literal, an override, a cache hit for both families), or asks for
    /// both families when `addresses` is nil.
    mutating func start(addresses: [SocketAddress]?, now: UInt64) -> [Action] {
        guard state == .idle else { return [unexpected("start")] }
        state = .racing
        if let addresses { return raced(race.start(addresses: addresses, now: now), now: now) }
        return raced(race.start(now: now), now: now)
    }

    /// Starts and fails at once: the host cannot be connected to (a numeric host that is no address).
    mutating func start(failure: NetworkSocket.Failure) -> [Action] {
        guard state == .idle else { return [unexpected("start")] }
        return [fail(.couldNotConnect(failure))]
    }

    /// The query for one family ended.
    mutating func resolved(
        _ family: SocketAddress.Family, _ result: Result<[SocketAddress], ResolutionFailure>, now: UInt64
    ) -> [Action] {
        guard state == .racing else { return isFinished || state != .idle ? [] : [unexpected("a lookup ended")] }
        return raced(race.resolved(family, result, now: now), now: now)
    }

    /// An attempt's socket connected.
    mutating func attemptConnected(_ id: AttemptID, now: UInt64) -> [Action] {
        guard state == .racing, isPending(id) else { return ignoredAttemptEvent("connected", id) }
        return raced(race.attemptConnected(id, now: now), now: now)
    }

    /// An attempt failed (at once, or when its socket became writable): the race goes on without it.
    mutating func attemptFailed(_ id: AttemptID, _ error: POSIXErrorCode, now: UInt64) -> [Action] {
        guard state == .racing, isPending(id) else { return ignoredAttemptEvent("failed", id) }
        return raced(race.attemptFailed(id, error, now: now), now: now)
    }

    /// The race's timer fired.
    mutating func raceTimerFired(now: UInt64) -> [Action] {
        guard state == .racing else { return [] }
        return raced(race.timerFired(now: now), now: now)
    }

    /// The handshakes are done: the stream carries requests from here on.
    mutating func handshakeFinished() -> [Action] {
        guard case .handshaking = state else { return [unexpected("the handshake finished")] }
        state = .connected
        return [.succeed]
    }

    /// A handshake failed.
    mutating func handshakeFailed() -> [Action] {
        guard case .handshaking = state else { return [unexpected("the handshake failed")] }
        return [fail(.handshakeFailed)]
    }

    /// The handshakes took longer than the connect timeout.
    mutating func handshakeTimedOut() -> [Action] {
        if isFinished { return [] }
        guard case .handshaking = state else { return [unexpected("the handshake timed out")] }
        return [fail(.handshakeTimedOut)]
    }

    /// The request's deadline passed: during the race, the race ends there (naming every address tried).
    mutating func deadlinePassed(now: UInt64) -> [Action] {
        switch state {
        case .connected, .failed: return []
        case .idle: return [unexpected("the deadline passed")]
        case .racing where now >= race.deadline: return raced(race.timerFired(now: now), now: now)
        case .racing, .handshaking:
            var actions = race.isFinished ? [] : race.cancel(now: now).map(translate)
            actions.append(fail(.requestTimedOut))
            return actions
        }
    }

    /// The request was cancelled: every pending attempt closes.
    mutating func cancelled(now: UInt64) -> [Action] {
        if isFinished { return [] }
        var actions = race.isFinished ? [] : race.cancel(now: now).map(translate)
        actions.append(fail(.cancelled))
        return actions
    }

    // MARK: Deciding

    private func isPending(_ id: AttemptID) -> Bool {
        race.attempts.indices.contains(id) && race.attempts[id].isPending
    }

    /// An attempt's event after the race or the attempt ended (a socket closed as it became writable) changes
    /// nothing; one for an attempt never started is a fault.
    private mutating func ignoredAttemptEvent(_ what: String, _ id: AttemptID) -> [Action] {
        if race.attempts.indices.contains(id) || isFinished { return [] }
        return [unexpected("attempt \(id) \(what)")]
    }

    /// The race's actions as the connector's, ending the race's phase when it connected or failed.
    private mutating func raced(_ actions: [HappyEyeballsStateMachine.Action], now: UInt64) -> [Action] {
        actions.map { action in
            switch action {
            case .connected(let id, _):
                state = .handshaking(id)
                return .handshake(id)
            case .failed(let failure):
                return fail(simplified(failure))
            default:
                return translate(action)
            }
        }
    }

    private func translate(_ action: HappyEyeballsStateMachine.Action) -> Action {
        switch action {
        case .resolve(let family): .resolve(family)
        case .connect(let id, let address): .connect(id, address)
        case .cancel(let id): .close(id)
        case .wake(let at): .wakeRace(at: at)
        case .connected(let id, _): .handshake(id)
        case .failed(let failure): .fail(.raceFailed(failure, requestDeadlineFirst: requestDeadlineFirst))
        }
    }

    /// A race that tried at most one address fails as a single connection does (its system error, the host not
    /// found, the timeout); one that tried several names each.
    private func simplified(_ failure: ConnectRaceFailure) -> Failure {
        switch failure.reason {
        case .noAddress:
            let answers = [failure.ipv6Answer, failure.ipv4Answer].compactMap { answer -> String? in
                if case .failed(let resolution) = answer { return resolution.message }
                return nil
            }
            var unique: [String] = []
            for answer in answers where !unique.contains(answer) { unique.append(answer) }
            return .couldNotConnect(.hostNotFound(unique.isEmpty ? "no address" : unique.joined(separator: "; ")))
        case .timedOut where failure.attempts.count <= 1:
            return requestDeadlineFirst ? .requestTimedOut : .couldNotConnect(.timedOut)
        case .everyAttemptFailed where failure.attempts.count == 1:
            guard case .failed(let code)? = failure.attempts.first?.outcome else {
                return .raceFailed(failure, requestDeadlineFirst: requestDeadlineFirst)
            }
            return .couldNotConnect(.system(POSIXError(code)))
        case .timedOut, .everyAttemptFailed:
            return .raceFailed(failure, requestDeadlineFirst: requestDeadlineFirst)
        }
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
