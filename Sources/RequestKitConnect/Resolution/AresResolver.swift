import RequestKitModel

#if canImport(CAres)
import CAres
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The system's resolver on Linux: c-ares, asking for `A` or `AAAA` records without blocking, its sockets watched
/// and its retransmissions timed by an event loop. It reads `/etc/hosts` (in the order `/etc/nsswitch.conf`
/// gives), and the name servers, search domains and options of `/etc/resolv.conf`, as the C library does; answers
/// carry the smallest TTL of their records.
///
/// Made, used and closed on the loop's thread only; each answer is handed to its completion there, possibly before
/// ``resolve(host:port:family:completion:)`` returns (an `/etc/hosts` entry).
///
/// ```swift
/// loop.execute {
///     let resolver = try AresResolver(loop: loop)
///     resolver.resolve(host: "example.com", port: 443, family: .ipv6) { result in print(result) }
/// }
/// ```
package final class AresResolver<Loop: ResolverLoop> {
    /// How the channel asks, for tests and tuning; the system's configuration by default.
    package struct Options: Sendable {
        /// The name servers to ask instead of those of `/etc/resolv.conf` (with their ports).
        package var servers: [SocketAddress]?
        /// How long one try of a query waits for an answer; c-ares's default (2 s, growing per try) when nil.
        package var queryTimeout: Duration?
        /// How many times a query is tried per server; c-ares's default (3) when nil.
        package var tries: Int?
        /// Where names are looked up and in which order: `"fb"` (`/etc/hosts`, then DNS), `"b"` (DNS only); the
        /// system's order when nil.
        package var lookups: String?

        package init(
            servers: [SocketAddress]? = nil, queryTimeout: Duration? = nil, tries: Int? = nil, lookups: String? = nil
        ) {
            self.servers = servers
            self.queryTimeout = queryTimeout
            self.tries = tries
            self.lookups = lookups
        }
    }

    private let loop: Loop
    private let callbacks: AresCallbacks
    private var channel: ares_channel?
    /// The descriptors c-ares asked to have watched, and for what.
    private var watched: [Int32: (readable: Bool, writable: Bool)] = [:]
    private var timer: Loop.Timer?

    /// Opens a channel configured as the system is (or as `options` say).
    ///
    /// - Throws: ``ResolutionFailure`` when c-ares cannot start (no memory, an unreadable configuration).
    package init(loop: Loop, options: Options = Options()) throws(ResolutionFailure) {
        self.loop = loop
        callbacks = AresCallbacks()
        guard AresLibrary.isInitialized else {
            throw ResolutionFailure(.other, "c-ares could not be initialized")
        }
        var aresOptions = ares_options()
        var mask = ARES_OPT_SOCK_STATE_CB
        aresOptions.sock_state_cb = { data, descriptor, readable, writable in
            guard let data else { return }
            Unmanaged<AresCallbacks>.fromOpaque(data).takeUnretainedValue().socketStateChanged(
                descriptor, readable: readable != 0, writable: writable != 0)
        }
        aresOptions.sock_state_cb_data = Unmanaged.passUnretained(callbacks).toOpaque()
        if let queryTimeout = options.queryTimeout {
            let (seconds, attoseconds) = queryTimeout.components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            aresOptions.timeout = Int32(clamping: max(milliseconds, 1))
            mask |= ARES_OPT_TIMEOUTMS
        }
        if let tries = options.tries {
            aresOptions.tries = Int32(clamping: max(tries, 1))
            mask |= ARES_OPT_TRIES
        }
        var status: Int32 = ARES_SUCCESS
        var opened: ares_channel?
        if let lookups = options.lookups {
            status = lookups.withCString { text in
                aresOptions.lookups = UnsafeMutablePointer(mutating: text)
                return ares_init_options(&opened, &aresOptions, mask | ARES_OPT_LOOKUPS)
            }
        } else {
            status = ares_init_options(&opened, &aresOptions, mask)
        }
        guard status == ARES_SUCCESS, let opened else { throw AresLibrary.failure(status, host: "") }
        channel = opened
        callbacks.socketStateChanged = { [unowned self] descriptor, readable, writable in
            self.socketStateChanged(descriptor, readable: readable, writable: writable)
        }
        if let servers = options.servers {
            let list = servers.map {
                $0.family == .ipv6 ? "[\($0.host)]:\($0.port ?? 53)" : "\($0.host):\($0.port ?? 53)"
            }
            let status = ares_set_servers_ports_csv(opened, list.joined(separator: ","))
            guard status == ARES_SUCCESS else {
                close()
                throw AresLibrary.failure(status, host: "")
            }
        }
    }

    deinit {
        callbacks.socketStateChanged = { _, _, _ in }
        if let channel { ares_destroy(channel) }
    }

    /// Asks for `host`'s addresses of `family` (an `AAAA` query for IPv6, `A` for IPv4), with `port` set on each.
    ///
    /// - Parameter completion: Called once on the loop with the addresses and their TTL, or why there are none.
    package func resolve(
        host: String, port: Int, family: SocketAddress.Family,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void
    ) {
        guard let channel else {
            completion(.failure(ResolutionFailure(.other, "the resolver is closed")))
            return
        }
        guard family != .unix else {
            completion(.failure(ResolutionFailure(.noAddress, "a Unix socket path is not looked up")))
            return
        }
        let query = AresQuery(host: host, port: port, family: family, completion: completion)
        var hints = ares_addrinfo_hints()
        hints.ai_family = family == .ipv6 ? AF_INET6 : AF_INET
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = ARES_AI_NOSORT
        ares_getaddrinfo(
            channel, host, nil, &hints,
            { argument, status, _, result in
                guard let argument else { return }
                let query = Unmanaged<AresQuery>.fromOpaque(argument).takeRetainedValue()
                query.finish(status: status, result: result)
                if let result { ares_freeaddrinfo(result) }
            }, Unmanaged.passRetained(query).toOpaque())
        rearmTimer()
    }

    /// Ends every query under way (each completion hears so) and closes the channel's sockets.
    package func close() {
        guard let channel else { return }
        self.channel = nil
        if let timer { loop.cancel(timer) }
        timer = nil
        ares_destroy(channel)
        for descriptor in watched.keys { loop.stopWatching(descriptor) }
        watched = [:]
    }

    // MARK: The channel's sockets and timer

    private func socketStateChanged(_ descriptor: Int32, readable: Bool, writable: Bool) {
        guard readable || writable else {
            if watched.removeValue(forKey: descriptor) != nil { loop.stopWatching(descriptor) }
            return
        }
        do {
            if watched[descriptor] == nil {
                try loop.watch(descriptor, readable: readable, writable: writable) { [weak self] readable, writable in
                    self?.process(descriptor, readable: readable, writable: writable)
                }
            } else {
                try loop.rewatch(descriptor, readable: readable, writable: writable)
            }
            watched[descriptor] = (readable, writable)
        } catch {
            // Unwatched, the socket's queries end by c-ares's own timeout, which the timer still drives.
            watched[descriptor] = nil
        }
    }

    private func process(_ descriptor: Int32, readable: Bool, writable: Bool) {
        guard let channel else { return }
        ares_process_fd(channel, readable ? descriptor : ARES_SOCKET_BAD, writable ? descriptor : ARES_SOCKET_BAD)
        rearmTimer()
    }

    /// Moves the timer to c-ares's next retransmission or timeout; none when nothing is under way.
    private func rearmTimer() {
        if let timer { loop.cancel(timer) }
        timer = nil
        guard let channel else { return }
        var room = timeval()
        guard let next = ares_timeout(channel, nil, &room) else { return }
        let wait = UInt64(max(next.pointee.tv_sec, 0)) * 1_000_000_000 + UInt64(max(next.pointee.tv_usec, 0)) * 1_000
        timer = loop.schedule(at: loop.now() &+ wait) { [weak self] in
            guard let self, let channel = self.channel else { return }
            self.timer = nil
            ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD)
            self.rearmTimer()
        }
    }
}

/// c-ares's one-time global setup, done before the first channel.
private enum AresLibrary {
    static let isInitialized: Bool = ares_library_init(ARES_LIB_INIT_ALL) == ARES_SUCCESS

    /// A c-ares status as a failure.
    static func failure(_ status: Int32, host: String) -> ResolutionFailure {
        let reason = String(cString: ares_strerror(status))
        switch status {
        case ARES_ENOTFOUND, ARES_ENONAME:
            return ResolutionFailure(.notFound, "\(host) was not found (\(reason))")
        case ARES_ENODATA:
            return ResolutionFailure(.noAddress, "\(host) has no address of that family (\(reason))")
        case ARES_ETIMEOUT:
            return ResolutionFailure(.timedOut, "No name server answered for \(host) (\(reason))")
        case ARES_ESERVFAIL, ARES_EREFUSED, ARES_ECONNREFUSED, ARES_EBADRESP, ARES_EFORMERR:
            return ResolutionFailure(.serverFailed, "The name servers failed to answer for \(host) (\(reason))")
        default:
            return ResolutionFailure(.other, "Could not resolve \(host) (\(reason))")
        }
    }
}

/// What the channel's C callback reaches: the resolver's handler, set once the resolver is whole.
private final class AresCallbacks {
    var socketStateChanged: (Int32, Bool, Bool) -> Void = { _, _, _ in }

    func socketStateChanged(_ descriptor: Int32, readable: Bool, writable: Bool) {
        socketStateChanged(descriptor, readable, writable)
    }
}

/// One query under way, retained by c-ares until its callback.
private final class AresQuery {
    let host: String
    let port: Int
    let family: SocketAddress.Family
    let completion: (Result<ResolvedAddresses, ResolutionFailure>) -> Void

    init(
        host: String, port: Int, family: SocketAddress.Family,
        completion: @escaping (Result<ResolvedAddresses, ResolutionFailure>) -> Void
    ) {
        self.host = host
        self.port = port
        self.family = family
        self.completion = completion
    }

    /// Hands the answer to the completion: the addresses of the family asked, in the order given, with the
    /// smallest TTL of the records (and of the CNAMEs that led to them).
    func finish(status: Int32, result: UnsafeMutablePointer<ares_addrinfo>?) {
        guard status == ARES_SUCCESS, let result else {
            completion(.failure(AresLibrary.failure(status, host: host)))
            return
        }
        var addresses: [SocketAddress] = []
        var timeToLive = Int32.max
        var node = result.pointee.nodes
        while let current = node {
            node = current.pointee.ai_next
            guard let socketAddress = current.pointee.ai_addr else { continue }
            let bytes = Array(
                UnsafeRawBufferPointer(start: socketAddress, count: Int(current.pointee.ai_addrlen)))
            guard let address = SocketAddress(bytes: bytes), address.family == family else { continue }
            let withPort = address.withPort(port)
            if !addresses.contains(withPort) { addresses.append(withPort) }
            timeToLive = min(timeToLive, current.pointee.ai_ttl)
        }
        var cname = result.pointee.cnames
        while let current = cname {
            cname = current.pointee.next
            timeToLive = min(timeToLive, current.pointee.ttl)
        }
        guard !addresses.isEmpty else {
            completion(.failure(ResolutionFailure(.noAddress, "\(host) has no \(family) address")))
            return
        }
        completion(.success(ResolvedAddresses(addresses: addresses, timeToLive: .seconds(max(timeToLive, 0)))))
    }
}

#endif
