import Foundation
import RequestKitConnect
import RequestKitModel

/// Where a transport's connectors get a host's addresses, one family at a time: an override first (curl's
/// `--resolve`), a numeric host as it is, then the transport's ``DNSCache``, and only on a miss its
/// ``AddressLookup`` (the system's resolver on the connector's loop, or a ``Resolver`` of the user's). One query per
/// name and family at a time: connectors that miss while it is under way wait for its answer.
///
/// The pool's loops share it, so the cache sits behind a lock; answers are handed to each waiter on its own loop.
///
/// ```swift
/// let resolver = HostResolver(lookup: SystemLookup(), overrides: overrides)
/// resolver.resolve(host: "example.com", port: 443, family: .ipv6, on: loop) { result in print(result) }
/// ```
final class HostResolver: @unchecked Sendable {
    // Safe: `cache` and `waiters` are only touched while holding `lock`, and no call out (a lookup, a completion)
    // is made while holding it.
    private let lock = NSLock()
    private var cache: DNSCache
    private var waiters: [DNSCache.Key: [Waiter]] = [:]
    private let lookup: any AddressLookup
    /// The addresses that replace lookups, for every request.
    let overrides: DNSOverrides

    /// A connector waiting for a query another asked.
    private struct Waiter {
        let loop: EventLoop
        let completion: (Result<[SocketAddress], ResolutionFailure>) -> Void
    }

    /// A resolver that asks `lookup` what neither `overrides` nor its cache (kept as `policy` says) knows.
    init(
        lookup: any AddressLookup = SystemLookup(), overrides: DNSOverrides = DNSOverrides(),
        policy: DNSCache.Policy = DNSCache.Policy()
    ) {
        self.lookup = lookup
        self.overrides = overrides
        cache = DNSCache(policy: policy)
    }

    /// The addresses of `host` and `port` that need no lookup: an override, an IP literal, or `localhost`; nil when
    /// it needs one.
    ///
    /// - Returns: The failure of a host that looks numeric but is no address (`300.1.2.3`).
    func addressesWithoutLookup(host: String, port: Int) -> Result<[SocketAddress]?, NetworkSocket.Failure> {
        if let fixed = overrides.addresses(host: host, port: port) { return .success(fixed) }
        return Result { () throws(NetworkSocket.Failure) in
            try NetworkSocket.addressesWithoutLookup(host: host, port: port)
        }
    }

    /// Asks for `host`'s addresses of `family`: from the cache while fresh, else from the lookup (once, however
    /// many connectors ask meanwhile). `completion` runs once on `loop`, possibly before this returns. Called on
    /// `loop`'s thread.
    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Result<[SocketAddress], ResolutionFailure>) -> Void
    ) {
        let found = lock.withLock { () -> DNSCache.Lookup in
            let found = cache.lookup(host: host, port: port, family: family, now: loop.now())
            if found == .wait {
                waiters[DNSCache.Key(host: host, port: port, family: family), default: []].append(
                    Waiter(loop: loop, completion: completion))
            }
            return found
        }
        switch found {
        case .hit(let addresses): completion(.success(addresses))
        case .failed(let failure): completion(.failure(failure))
        case .wait: return
        case .resolve:
            lookup.resolve(host: host, port: port, family: family, on: loop) { [self] result in
                let key = DNSCache.Key(host: host, port: port, family: family)
                let waiting = lock.withLock {
                    cache.store(result, host: host, port: port, family: family, now: loop.now())
                    return waiters.removeValue(forKey: key) ?? []
                }
                let answer = result.map(\.addresses)
                completion(answer)
                for waiter in waiting {
                    if waiter.loop === loop {
                        waiter.completion(answer)
                    } else {
                        waiter.loop.execute { waiter.completion(answer) }
                    }
                }
            }
        }
    }

    /// Forgets every cached answer and failure (the network changed); queries under way stay.
    func removeCachedAnswers() {
        lock.withLock { cache.removeAll() }
    }

    /// How many names and families the cache holds, queries under way included.
    var cachedCount: Int { lock.withLock { cache.count } }
}

/// A ``Resolver`` of the user's as the connectors' lookup: each query runs as a task, and its answer is handed
/// back on the loop that asked.
///
/// ```swift
/// let resolver = HostResolver(lookup: UserResolverLookup(registry))
/// ```
struct UserResolverLookup: AddressLookup {
    let resolver: any Resolver

    init(_ resolver: any Resolver) {
        self.resolver = resolver
    }

    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void
    ) {
        let answer = LoopCompletion(completion)
        let resolver = resolver
        Task {
            let result: Result<ResolvedAddresses, ResolutionFailure>
            do throws(ResolutionFailure) {
                result = .success(try await resolver.resolve(host: host, port: port, family: family))
            } catch {
                result = .failure(error)
            }
            loop.execute { answer.completion(result) }
        }
    }
}

/// A completion carried to another thread and back to the loop that made it, where alone it is called.
struct LoopCompletion<Value>: @unchecked Sendable {
    let completion: (Value) -> Void

    init(_ completion: @escaping (Value) -> Void) {
        self.completion = completion
    }
}
