import RequestKitModel

/// The answers of a transport's resolver, kept for their TTL so that the connections of a pool (a polling loop, a
/// chain of requests to one host) ask once per TTL; failures are kept briefly too. A value with no clock: the owner
/// passes its monotonic nanoseconds with each call.
///
/// One query per name at a time: the first to miss is told to ``Lookup/resolve`` and the others to
/// ``Lookup/wait`` for the answer it ``store(_:host:port:family:now:)``s (or ``abandon(host:port:family:)``s).
///
/// ```swift
/// var cache = DNSCache()
/// switch cache.lookup(host: "example.com", port: 443, family: .ipv6, now: now) {
/// case .hit(let addresses): race(addresses)
/// case .failed(let failure): fail(failure)
/// case .resolve: ask(.ipv6)   // then cache.store(.success(answer), host: ..., now: later)
/// case .wait: queue()
/// }
/// ```
package struct DNSCache: Sendable {
    /// What the cache holds, and for how long.
    package struct Policy: Sendable, Hashable {
        /// The shortest time an answer is kept, whatever its TTL (a TTL of 0 is common for `/etc/hosts` and some
        /// load balancers). 1 s by default.
        package var minimumTimeToLive: Duration
        /// The longest time an answer is kept, whatever its TTL. 5 minutes by default.
        package var maximumTimeToLive: Duration
        /// How long a failure (no such name, no address of the family, the server failing) is kept; a query that
        /// timed out is never kept. 2 s by default.
        package var failureTimeToLive: Duration
        /// The most names and families held; past it, the entry that expires first goes. 1,000 by default.
        package var maximumEntries: Int

        package init(
            minimumTimeToLive: Duration = .seconds(1), maximumTimeToLive: Duration = .seconds(300),
            failureTimeToLive: Duration = .seconds(2), maximumEntries: Int = 1_000
        ) {
            self.minimumTimeToLive = minimumTimeToLive
            self.maximumTimeToLive = maximumTimeToLive
            self.failureTimeToLive = failureTimeToLive
            self.maximumEntries = maximumEntries
        }
    }

    /// What a lookup found.
    package enum Lookup: Sendable, Hashable {
        /// A fresh answer.
        case hit([SocketAddress])
        /// A fresh failure.
        case failed(ResolutionFailure)
        /// Nothing fresh, and no query under way: ask, then store the answer.
        case resolve
        /// A query for it is under way: its answer comes through ``store(_:host:port:family:now:)``.
        case wait
    }

    /// A name, a port and a family.
    package struct Key: Sendable, Hashable {
        package let host: String
        package let port: Int
        package let family: SocketAddress.Family

        package init(host: String, port: Int, family: SocketAddress.Family) {
            self.host = host.lowercased()
            self.port = port
            self.family = family
        }
    }

    private enum Entry: Sendable {
        case answer([SocketAddress], expires: UInt64)
        case failure(ResolutionFailure, expires: UInt64)
        /// A query is under way.
        case asking

        var expires: UInt64 {
            switch self {
            case .answer(_, let expires), .failure(_, let expires): expires
            case .asking: .max
            }
        }
    }

    package let policy: Policy
    private var entries: [Key: Entry] = [:]

    package init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// How many names and families it holds, queries under way included.
    package var count: Int { entries.count }

    /// What it holds for `host`, `port` and `family` at `now`; a miss marks a query as under way.
    package mutating func lookup(host: String, port: Int, family: SocketAddress.Family, now: UInt64) -> Lookup {
        let key = Key(host: host, port: port, family: family)
        switch entries[key] {
        case .answer(let addresses, let expires)? where now < expires:
            return .hit(addresses)
        case .failure(let failure, let expires)? where now < expires:
            return .failed(failure)
        case .asking?:
            return .wait
        default:
            makeRoom(now: now)
            entries[key] = .asking
            return .resolve
        }
    }

    /// Keeps the answer of the query that ``lookup(host:port:family:now:)`` asked for, from `now`: addresses for
    /// their TTL within the floor and ceiling, a failure for the failure TTL, a timeout not at all.
    package mutating func store(
        _ result: Result<ResolvedAddresses, ResolutionFailure>, host: String, port: Int,
        family: SocketAddress.Family, now: UInt64
    ) {
        let key = Key(host: host, port: port, family: family)
        switch result {
        case .success(let answer) where !answer.addresses.isEmpty:
            let kept = min(max(answer.timeToLive, policy.minimumTimeToLive), policy.maximumTimeToLive)
            entries[key] = .answer(answer.addresses, expires: now &+ Self.nanoseconds(kept))
        case .success:
            let failure = ResolutionFailure(.noAddress, "\(host) has no \(family) address")
            entries[key] = .failure(failure, expires: now &+ Self.nanoseconds(policy.failureTimeToLive))
        case .failure(let failure) where failure.kind == .timedOut:
            entries[key] = nil
        case .failure(let failure):
            entries[key] = .failure(failure, expires: now &+ Self.nanoseconds(policy.failureTimeToLive))
        }
        if entries.count > policy.maximumEntries { makeRoom(now: now) }
    }

    /// Forgets a query under way that will not be answered (its asker was cancelled); the next lookup asks again.
    package mutating func abandon(host: String, port: Int, family: SocketAddress.Family) {
        let key = Key(host: host, port: port, family: family)
        if case .asking? = entries[key] { entries[key] = nil }
    }

    /// Forgets every answer and failure (the network changed); queries under way stay.
    package mutating func removeAll() {
        entries = entries.filter { if case .asking = $0.value { true } else { false } }
    }

    /// Drops what expired, then, while still full, what expires first.
    private mutating func makeRoom(now: UInt64) {
        guard entries.count >= policy.maximumEntries else { return }
        entries = entries.filter { $0.value.expires > now }
        while entries.count >= max(policy.maximumEntries, 1) {
            guard let soonest = entries.min(by: { $0.value.expires < $1.value.expires }),
                soonest.value.expires != .max
            else { return }
            entries[soonest.key] = nil
        }
    }

    /// A non-negative duration in nanoseconds, saturating.
    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .max }
        return whole &+ UInt64(max(attoseconds, 0) / 1_000_000_000)
    }
}
