import Foundation
import RequestKitModel

/// One connection race to a host, as RFC 8305 (Happy Eyeballs version 2) runs it, with no I/O and no clock: the
/// owner passes each event with the time (monotonic nanoseconds) and carries out the actions returned.
///
/// - `AAAA` and `A` are asked at once (``Action/resolve(_:)``).
/// - When the `A` answer comes first, connecting waits the resolution delay (50 ms) for the `AAAA` answer.
/// - The addresses are tried IPv6 first, then alternating between the families (RFC 8305, section 4); an answer
///   that comes once attempts began joins the addresses not yet tried.
/// - A new attempt starts every connection-attempt delay (250 ms) while earlier ones are pending, and at once when
///   one fails.
/// - The first attempt to connect wins (``Action/connected(_:_:)``); every other pending one is cancelled.
/// - Nothing outlives the deadline (the request's connect timeout): the race ends there with every address tried
///   and how each ended (``ConnectRaceFailure``).
///
/// The owner keeps one timer, which ``Action/wake(at:)`` moves, and passes its firing to ``timerFired(now:)``.
///
/// ```swift
/// var race = HappyEyeballsStateMachine(host: "example.com", port: 443, deadline: now + 10_000_000_000)
/// for action in race.start(now: now) { run(action) }   // resolve AAAA, resolve A, wake at the deadline
/// ```
package struct HappyEyeballsStateMachine: Sendable {
    /// The race's delays, in nanoseconds.
    package struct Configuration: Sendable, Hashable {
        /// How long an `A` answer waits for the `AAAA` answer before IPv4 attempts start (RFC 8305: 50 ms).
        package var resolutionDelay: UInt64
        /// How long an attempt has to itself before the next address is tried beside it (RFC 8305: 250 ms).
        package var attemptDelay: UInt64

        package init(resolutionDelay: UInt64 = 50_000_000, attemptDelay: UInt64 = 250_000_000) {
            self.resolutionDelay = resolutionDelay
            self.attemptDelay = attemptDelay
        }
    }

    /// An attempt's number: its index in ``attempts``.
    package typealias AttemptID = Int

    /// What the owner does.
    package enum Action: Sendable, Hashable {
        /// Ask for the host's addresses of one family (`AAAA` for IPv6, `A` for IPv4); the answer comes back
        /// through ``resolved(_:_:now:)``.
        case resolve(SocketAddress.Family)
        /// Open a socket and start connecting it to the address; the outcome comes back through
        /// ``attemptConnected(_:now:)`` or ``attemptFailed(_:_:now:)``.
        case connect(AttemptID, SocketAddress)
        /// Close the socket of a pending attempt; it is over.
        case cancel(AttemptID)
        /// Move the race's timer to this time (it replaces any earlier one).
        case wake(at: UInt64)
        /// The attempt connected: hand its socket on. The race is over.
        case connected(AttemptID, SocketAddress)
        /// No attempt connected. The race is over.
        case failed(ConnectRaceFailure)
    }

    /// What became of the query for one family.
    package enum FamilyAnswer: Sendable, Hashable {
        /// Asked, not answered yet.
        case pending
        /// Answered with this many addresses.
        case addresses(Int)
        /// Answered with a failure.
        case failed(ResolutionFailure)
        /// Not asked: the addresses were known without a query.
        case notAsked

        var isPending: Bool { self == .pending }
    }

    let host: String
    let port: Int
    let configuration: Configuration
    /// When the race ends at the latest.
    package let deadline: UInt64
    /// Every address tried, in the order tried, and how each ended.
    package private(set) var attempts: [ConnectAttemptRecord] = []
    /// What became of the `AAAA` and `A` queries.
    package private(set) var ipv6Answer = FamilyAnswer.pending
    package private(set) var ipv4Answer = FamilyAnswer.pending
    /// Addresses known and not tried yet, per family, in the resolver's order.
    private var untriedIPv6: [SocketAddress] = []
    private var untriedIPv4: [SocketAddress] = []
    /// Unix socket paths known and not tried yet, tried before any IP address, in the order given.
    private var untriedUnix: [SocketAddress] = []
    /// When the resolution delay ends, once an `A` answer came before the `AAAA` answer.
    private var resolutionDelayEnd: UInt64?
    /// When the next attempt may start beside pending ones.
    private var nextAttemptTime: UInt64 = 0
    /// The family the next attempt prefers.
    private var nextFamily = SocketAddress.Family.ipv6
    /// The time the owner's timer was last moved to.
    private var armedWake: UInt64?
    private var isStarted = false
    /// Whether the race is over (connected, failed or cancelled).
    package private(set) var isFinished = false

    /// A race to `host` and `port` that ends at `deadline` at the latest.
    package init(host: String, port: Int, configuration: Configuration = Configuration(), deadline: UInt64) {
        self.host = host
        self.port = port
        self.configuration = configuration
        self.deadline = deadline
    }

    // MARK: Events

    /// Starts the race by asking for both families.
    package mutating func start(now: UInt64) -> [Action] {
        guard !isStarted else { return [] }
        isStarted = true
        return [.resolve(.ipv6), .resolve(.ipv4)] + advance(now: now)
    }

    /// Starts the race with addresses known without a query (a numeric host, an override, a cache entry for both
    /// families, a Unix socket's path, which goes first): no query is asked and no resolution delay applies.
    package mutating func start(addresses: [SocketAddress], now: UInt64) -> [Action] {
        guard !isStarted else { return [] }
        isStarted = true
        untriedUnix = unique(addresses.filter { $0.family == .unix })
        untriedIPv6 = unique(addresses.filter { $0.family == .ipv6 })
        untriedIPv4 = unique(addresses.filter { $0.family == .ipv4 })
        ipv6Answer = .notAsked
        ipv4Answer = .notAsked
        return advance(now: now)
    }

    /// The answer for one family came: its addresses (possibly none) or its failure.
    package mutating func resolved(
        _ family: SocketAddress.Family, _ result: Result<[SocketAddress], ResolutionFailure>, now: UInt64
    ) -> [Action] {
        guard isStarted, !isFinished else { return [] }
        let answer: FamilyAnswer
        var addresses: [SocketAddress] = []
        switch result {
        case .success(let found):
            addresses = unique(found.filter { $0.family == family })
            answer =
                addresses.isEmpty
                ? .failed(ResolutionFailure(.noAddress, "\(host) has no \(family) address"))
                : .addresses(addresses.count)
        case .failure(let failure):
            answer = .failed(failure)
        }
        switch family {
        case .ipv6:
            guard ipv6Answer.isPending else { return [] }
            ipv6Answer = answer
            untriedIPv6 = addresses
        case .ipv4:
            guard ipv4Answer.isPending else { return [] }
            ipv4Answer = answer
            untriedIPv4 = addresses
            if ipv6Answer.isPending, !addresses.isEmpty, attempts.isEmpty {
                resolutionDelayEnd = now &+ configuration.resolutionDelay
            }
        case .unix:
            return []
        }
        return advance(now: now)
    }

    /// The attempt's socket connected: it wins, and every other pending attempt is cancelled.
    package mutating func attemptConnected(_ id: AttemptID, now: UInt64) -> [Action] {
        guard !isFinished, attempts.indices.contains(id), attempts[id].isPending else {
            assertionFailure("attempt \(id) connected but is not pending")
            return []
        }
        end(id, .connected, now: now)
        var actions: [Action] = []
        for other in attempts.indices where attempts[other].isPending {
            end(other, .lostRace, now: now)
            actions.append(.cancel(other))
        }
        isFinished = true
        actions.append(.connected(id, attempts[id].address))
        return actions
    }

    /// The attempt failed (its socket could not be made, or the connection was refused or unreachable): the next
    /// address is tried at once.
    package mutating func attemptFailed(_ id: AttemptID, _ error: POSIXErrorCode, now: UInt64) -> [Action] {
        guard !isFinished, attempts.indices.contains(id), attempts[id].isPending else {
            assertionFailure("attempt \(id) failed but is not pending")
            return []
        }
        end(id, .failed(error), now: now)
        nextAttemptTime = now
        return advance(now: now)
    }

    /// The owner's timer fired.
    package mutating func timerFired(now: UInt64) -> [Action] {
        guard isStarted, !isFinished else { return [] }
        armedWake = nil
        return advance(now: now)
    }

    /// The owner gives up (the request was cancelled): every pending attempt is cancelled.
    package mutating func cancel(now: UInt64) -> [Action] {
        guard !isFinished else { return [] }
        isFinished = true
        var actions: [Action] = []
        for id in attempts.indices where attempts[id].isPending {
            end(id, .abandoned, now: now)
            actions.append(.cancel(id))
        }
        return actions
    }

    // MARK: Deciding

    /// Starts what may start now, ends the race when nothing more can happen, and moves the timer.
    private mutating func advance(now: UInt64) -> [Action] {
        var actions: [Action] = []
        if now >= deadline {
            for id in attempts.indices where attempts[id].isPending {
                end(id, .timedOut, now: now)
                actions.append(.cancel(id))
            }
            isFinished = true
            actions.append(.failed(failure(.timedOut, now: now)))
            return actions
        }
        if mayConnect(now: now) {
            while hasUntried, !hasPendingAttempt || now >= nextAttemptTime {
                let address = takeNextAddress()
                attempts.append(ConnectAttemptRecord(address: address, started: now))
                nextAttemptTime = now &+ configuration.attemptDelay
                actions.append(.connect(attempts.count - 1, address))
            }
        }
        if !hasPendingAttempt, !hasUntried, !ipv6Answer.isPending, !ipv4Answer.isPending {
            isFinished = true
            let reason: ConnectRaceFailure.Reason = attempts.isEmpty ? .noAddress : .everyAttemptFailed
            actions.append(.failed(failure(reason, now: now)))
            return actions
        }
        let wake = nextWake(now: now)
        if wake != armedWake {
            armedWake = wake
            actions.append(.wake(at: wake))
        }
        return actions
    }

    /// Whether attempts may start: the `AAAA` answer is in, or the `A` answer waited out the resolution delay, or
    /// attempts already began.
    private func mayConnect(now: UInt64) -> Bool {
        if !attempts.isEmpty || !ipv6Answer.isPending { return true }
        guard let resolutionDelayEnd else { return false }
        return now >= resolutionDelayEnd
    }

    /// The earliest time something can change by itself: the resolution delay ending, the next attempt becoming
    /// due, or the deadline.
    private func nextWake(now: UInt64) -> UInt64 {
        var wake = deadline
        if attempts.isEmpty, ipv6Answer.isPending, let resolutionDelayEnd, hasUntried {
            wake = min(wake, resolutionDelayEnd)
        }
        if hasUntried, hasPendingAttempt {
            wake = min(wake, nextAttemptTime)
        }
        return wake
    }

    private var hasUntried: Bool { !untriedUnix.isEmpty || !untriedIPv6.isEmpty || !untriedIPv4.isEmpty }

    private var hasPendingAttempt: Bool { attempts.contains { $0.isPending } }

    /// The next address to try: of the preferred family when it has one left, alternating from IPv6.
    private mutating func takeNextAddress() -> SocketAddress {
        if !untriedUnix.isEmpty { return untriedUnix.removeFirst() }
        let takeIPv6 = untriedIPv4.isEmpty || (nextFamily == .ipv6 && !untriedIPv6.isEmpty)
        if takeIPv6 {
            nextFamily = .ipv4
            return untriedIPv6.removeFirst()
        }
        nextFamily = .ipv6
        return untriedIPv4.removeFirst()
    }

    private mutating func end(_ id: AttemptID, _ outcome: ConnectAttemptRecord.Outcome, now: UInt64) {
        attempts[id].outcome = outcome
        attempts[id].ended = now
    }

    private func failure(_ reason: ConnectRaceFailure.Reason, now: UInt64) -> ConnectRaceFailure {
        ConnectRaceFailure(
            host: host, port: port, reason: reason, attempts: attempts, ipv6Answer: ipv6Answer,
            ipv4Answer: ipv4Answer)
    }

    /// The addresses without repeats, in their order.
    private func unique(_ addresses: [SocketAddress]) -> [SocketAddress] {
        var seen = Set<SocketAddress>()
        return addresses.filter { seen.insert($0).inserted }
    }
}
