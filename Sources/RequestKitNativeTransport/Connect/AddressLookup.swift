import Foundation
import RequestKitConnect
import RequestKitModel

/// Asks for a host's addresses of one family on an event loop, and answers on that loop: what a ``HostResolver``
/// asks when neither an override nor its cache knows the answer. The system's (``SystemLookup``) in use; a test's
/// answers as its script says, on a loop the test turns.
///
/// ```swift
/// lookup.resolve(host: "example.com", port: 443, family: .ipv6, on: loop) { result in print(result) }
/// ```
protocol AddressLookup: Sendable {
    /// Asks for `host`'s addresses of `family`, with `port` set on each, and calls `completion` once, on `loop`
    /// (possibly before returning: an `/etc/hosts` entry). Called on `loop`'s thread.
    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void)
}

#if canImport(CAres)
/// The system's resolver, c-ares, on each event loop that asks: one ``AresResolver`` per loop, made on its first
/// lookup, whose sockets and timers that loop runs. No thread per lookup, and the loop never blocks.
///
/// ```swift
/// let lookup = SystemLookup()
/// loop.execute { lookup.resolve(host: "example.com", port: 443, family: .ipv4, on: loop) { print($0) } }
/// ```
final class SystemLookup: AddressLookup, @unchecked Sendable {
    // Safe: `lock` guards `resolvers`; each resolver is only used on its own loop's thread.
    private let lock = NSLock()
    private var resolvers: [ObjectIdentifier: Channel] = [:]
    private let options: AresResolver<EventLoop>.Options

    /// A loop's resolver, or why it could not be made.
    private final class Channel {
        let loop: EventLoop
        let resolver: Result<AresResolver<EventLoop>, ResolutionFailure>

        init(loop: EventLoop, options: AresResolver<EventLoop>.Options) {
            self.loop = loop
            resolver = Result { () throws(ResolutionFailure) in try AresResolver(loop: loop, options: options) }
        }
    }

    /// The system's configuration (`/etc/resolv.conf`, `/etc/hosts`), or these name servers (tests, benchmarks).
    init(servers: [SocketAddress]? = nil) {
        options = AresResolver<EventLoop>.Options(servers: servers)
    }

    deinit {
        for channel in resolvers.values {
            // Each channel closes on its own loop, which may be running one of its sockets' handlers.
            channel.loop.execute {
                if case .success(let resolver) = channel.resolver { resolver.close() }
            }
        }
    }

    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void
    ) {
        let channel = lock.withLock {
            if let channel = resolvers[ObjectIdentifier(loop)] { return channel }
            let channel = Channel(loop: loop, options: options)
            resolvers[ObjectIdentifier(loop)] = channel
            return channel
        }
        switch channel.resolver {
        case .success(let resolver): resolver.resolve(host: host, port: port, family: family, completion: completion)
        case .failure(let failure): completion(.failure(failure))
        }
    }
}
#else
/// The system's resolver where c-ares is not linked (Apple platforms): `getaddrinfo` for one family on a
/// short-lived thread of its own (never the loop or the task pool), answered on the loop. It gives no TTL: answers
/// are cached for the cache's floor.
///
/// ```swift
/// let lookup = SystemLookup()
/// loop.execute { lookup.resolve(host: "example.com", port: 443, family: .ipv4, on: loop) { print($0) } }
/// ```
struct SystemLookup: AddressLookup {
    /// The system's configuration; `servers` are not used, as `getaddrinfo` asks the system's name servers.
    init(servers: [SocketAddress]? = nil) {}

    func resolve(
        host: String, port: Int, family: SocketAddress.Family, on loop: EventLoop,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void
    ) {
        let answer = LoopCompletion(completion)
        do {
            try DetachedThread.start(name: "RequestKit.DNS") {
                let result = Result { () throws(ResolutionFailure) in
                    ResolvedAddresses(
                        addresses: try NetworkSocket.resolve(host: host, port: port, family: family),
                        timeToLive: .zero)
                }
                loop.execute { answer.completion(result) }
            }
        } catch {
            completion(.failure(ResolutionFailure(.other, "no thread for looking \(host) up: \(error)")))
        }
    }
}
#endif
