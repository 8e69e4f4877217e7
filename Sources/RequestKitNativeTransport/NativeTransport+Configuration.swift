import Foundation
import RequestKitConnect
import RequestKitModel
import RequestKitSockets
import RequestKitURLSession

extension NativeTransport {
    /// How an ``NativeTransport`` connects, pools and limits.
    ///
    /// ```swift
    /// var configuration = NativeTransport.Configuration()
    /// configuration.maxConnectionsPerHost = 4
    /// configuration.connectTimeout = 2
    /// let transport = NativeTransport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The most connections open to one host and port at once; further requests wait for one. 16 by default.
        ///
        /// ```swift
        /// configuration.maxConnectionsPerHost = 4
        /// ```
        public var maxConnectionsPerHost = 16
        /// How long, in seconds, an idle kept-alive connection stays in the pool before it is closed. 60 by
        /// default.
        ///
        /// ```swift
        /// configuration.idleConnectionTimeout = 30
        /// ```
        public var idleConnectionTimeout: Double = 60
        /// How long, in seconds, opening a connection may take. 10 by default.
        ///
        /// ```swift
        /// configuration.connectTimeout = 2
        /// ```
        public var connectTimeout: Double = 10
        /// The largest response head (status line and headers), in bytes. 64 KiB by default.
        ///
        /// ```swift
        /// configuration.maxResponseHeadBytes = 16 * 1024
        /// ```
        public var maxResponseHeadBytes = 64 * 1024
        /// The most header fields a response may have. 100 by default.
        ///
        /// ```swift
        /// configuration.maxResponseHeaderCount = 50
        /// ```
        public var maxResponseHeaderCount = 100
        /// The largest response body ``NativeTransport/send(_:)`` holds in memory, in bytes, after decompression: an
        /// upper bound over the request's ``ResponseLimits/maxBodyBytes`` (64 MiB unless the request or its client
        /// says otherwise), which applies when lower. ``NativeTransport/stream(_:)`` (and so `download(to:)`) is
        /// bounded only by ``ResponseLimits/maxStreamedBodyBytes``. 1 GiB by default.
        ///
        /// ```swift
        /// configuration.maxResponseBodyBytes = 10 << 20  // 10 MiB
        /// ```
        public var maxResponseBodyBytes = 1 << 30
        /// How many event-loop threads drive the transport's sockets. 1 by default, which serves thousands of
        /// connections; more can help when many busy connections need CPU time on a machine with cores to spare.
        /// Transports with the same count share the same threads, which last for the life of the process.
        ///
        /// ```swift
        /// configuration.eventLoopCount = 2
        /// ```
        public var eventLoopCount = 1
        /// How `https` connections trust servers and present themselves (Linux): the system's trust store and full
        /// verification by default. Connections made with different configurations are pooled apart.
        ///
        /// ```swift
        /// configuration.tls.additionalRoots = [.file("/etc/company/root-ca.pem")]
        /// ```
        public var tls = TLSConfiguration.default
        /// Where requests go: straight to their origin, or through a proxy. ``ProxyConfiguration/environment`` by
        /// default: the proxy variables of the process (`https_proxy`, `http_proxy`, `all_proxy`, `no_proxy`),
        /// read when the transport is made. Connections through different proxies are pooled apart.
        ///
        /// ```swift
        /// configuration.proxy = .socks5h(host: "127.0.0.1", port: 1080)
        /// ```
        public var proxy = ProxyConfiguration.environment
        /// Where `https` requests go on Apple platforms, where this transport speaks plain TCP only (on Linux it
        /// speaks TLS itself and this is not used). ``URLSessionTransport/shared`` by default.
        ///
        /// ```swift
        /// configuration.secureTransport = URLSessionTransport(configuration: .ephemeral)
        /// ```
        public var secureTransport: any Transport = URLSessionTransport.shared
        /// How long, in seconds, a request looks for its response itself before it waits for the event loop to
        /// hand it over, when it is the only request the transport has in flight and the server answered the
        /// connection's last request within this time. 0.0001 (100 µs) by default; 0 (or a value that is not
        /// finite) never looks; at most 0.01.
        ///
        /// A request that waits is woken twice (the loop by the response, then the task by the loop), which on a
        /// loopback or data-centre round trip takes about as long as the server does; looking for the response
        /// meanwhile, with reads that do not block, halves the time of sequential requests and spends less CPU,
        /// since a fast response comes before the window ends. Concurrent requests never look: they wait for the
        /// loop; nor does a request that is alone for a moment among concurrent ones (two requests were in flight at
        /// once in the last 10 ms), whose task would hold a thread the others need. HTTP/2 never looks: a request on
        /// a connection with no stream open is written by its task, and the loop, woken by the response, finishes it. Set 0 to keep the thread free of this work, for example on
        /// battery power.
        ///
        /// ```swift
        /// configuration.responsePollWindow = 0  // always wait for the loop
        /// ```
        public var responsePollWindow: Double = 0.0001
        /// Where the transport speaks HTTP/2: over `https` when the server picks it (``HTTP2Policy/negotiated``, the
        /// default), also to plain `http` servers known to speak it (``HTTP2Policy/priorKnowledge``), or nowhere
        /// (``HTTP2Policy/disabled``). Where the system's nghttp2 is missing (Apple platforms), HTTP/1.1 everywhere.
        ///
        /// ```swift
        /// configuration.http2 = .disabled
        /// ```
        public var http2 = HTTP2Policy.negotiated
        /// How long, in seconds, an HTTP/2 connection stays idle in the pool before a `PING` checks that its server
        /// is still there; a server that has not answered when the same time has passed again is taken for gone,
        /// and the connection closes before a request is sent on it. 30 by default; 0 never checks.
        ///
        /// ```swift
        /// configuration.http2PingInterval = 10
        /// ```
        public var http2PingInterval: Double = 30
        /// Where host names are looked up: the system's resolver when nil (on Linux, c-ares on the transport's event
        /// loop, reading `/etc/hosts` and `/etc/resolv.conf` as the C library does: no thread per lookup, and the
        /// records' TTLs kept), or a ``Resolver`` of your own (service discovery, a fixed table). nil by default.
        ///
        /// ```swift
        /// configuration.resolver = ServiceRegistry()
        /// ```
        public var resolver: (any Resolver)?
        /// Fixed addresses for host names and ports, used instead of a lookup (curl's `--resolve`): a server before
        /// its DNS record exists, or a staging address under the production name, so that TLS still checks the real
        /// name. Empty by default.
        ///
        /// ```swift
        /// configuration.dnsOverrides = try DNSOverrides(["api.example.com:443:192.0.2.7"])
        /// ```
        public var dnsOverrides = DNSOverrides()
        /// How long, in seconds, a new connection's attempt has to itself before the host's next address is tried
        /// beside it (Happy Eyeballs, RFC 8305); a failed attempt starts the next at once. 0.25 by default, within
        /// 0.01 and 2 (RFC 8305's bounds).
        ///
        /// ```swift
        /// configuration.connectionAttemptDelay = 0.1
        /// ```
        public var connectionAttemptDelay: Double = 0.25
        /// How long, in seconds, an `A` answer that comes before the `AAAA` answer waits for it before IPv4 attempts
        /// start. 0.05 by default, at most 1.
        ///
        /// ```swift
        /// configuration.resolutionDelay = 0
        /// ```
        public var resolutionDelay: Double = 0.05
        /// The shortest time, in seconds, an answer stays in the transport's DNS cache, whatever its TTL (a TTL of 0
        /// would have every connection ask again). 1 by default.
        ///
        /// ```swift
        /// configuration.dnsCacheMinimumTimeToLive = 5
        /// ```
        public var dnsCacheMinimumTimeToLive: Double = 1
        /// The longest time, in seconds, an answer stays in the transport's DNS cache, whatever its TTL; 0 asks again
        /// for every new connection. 300 by default.
        ///
        /// ```swift
        /// configuration.dnsCacheMaximumTimeToLive = 60
        /// ```
        public var dnsCacheMaximumTimeToLive: Double = 300
        /// The local address or interface new connections leave from; nil (the system chooses) by default.
        ///
        /// ```swift
        /// configuration.localBinding = LocalBinding(interface: "eth1")
        /// ```
        public var localBinding: LocalBinding?
        /// TCP keep-alive probes on every new connection; nil (the system's default, usually off) by default.
        ///
        /// ```swift
        /// configuration.tcpKeepAlive = TCPKeepAlive(idle: .seconds(30), interval: .seconds(10), count: 3)
        /// ```
        public var tcpKeepAlive: TCPKeepAlive?
        /// Base URLs whose requests go through a Unix domain socket instead of TCP (a local daemon such as Docker, a
        /// sidecar): the URL keeps its host, which the `Host` header and TLS name, and the connections to each socket
        /// are pooled apart. HTTP/2 with prior knowledge (``HTTP2Policy``) and TLS work over a socket as over TCP;
        /// proxies are never used for these requests. None by default.
        ///
        /// ```swift
        /// try configuration.unixSocketRoutes.route(URL(string: "http://docker")!, through: "/var/run/docker.sock")
        /// ```
        public var unixSocketRoutes = UnixSocketRoutes()

        /// Whether responses carry ``RequestMetrics``: always, except to measure what recording them costs (the
        /// metrics benchmark), when the transport reads no clock and builds no attempt for them. Package-level: only
        /// the benchmarks and tests turn it off.
        ///
        /// ```swift
        /// let bare = NativeTransport { $0.recordsMetrics = false }
        /// ```
        package var recordsMetrics = true

        /// Told when each connection of the pool opens, goes idle or active, and closes (the Metrics trait's
        /// `http.client.open_connections`). Package-level: the traits set it through their own spelling. None by
        /// default, when the pool keeps no account of them.
        ///
        /// ```swift
        /// let transport = NativeTransport { $0.connectionObservers = [observer] }
        /// ```
        package var connectionObservers: [any ConnectionObserver] = []

        /// The default configuration.
        ///
        /// ```swift
        /// let configuration = NativeTransport.Configuration()
        /// ```
        public init() {}

        var limits: ConnectionLimits {
            var limits = ConnectionLimits()
            limits.head.maxHeadBytes = max(1024, maxResponseHeadBytes)
            limits.head.maxFields = max(1, maxResponseHeaderCount)
            return limits
        }

        /// The system resolver's name servers instead of `/etc/resolv.conf`'s (with their ports): tests and
        /// benchmarks point it at a DNS server of their own. Package-level; nil (the system's) by default.
        ///
        /// ```swift
        /// let transport = NativeTransport { $0.systemResolverServers = [dns.address] }
        /// ```
        package var systemResolverServers: [SocketAddress]?

        /// The race's delays, within RFC 8305's bounds, in nanoseconds.
        var raceConfiguration: HappyEyeballsStateMachine.Configuration {
            HappyEyeballsStateMachine.Configuration(
                resolutionDelay: Self.nanoseconds(resolutionDelay, within: 0...1),
                attemptDelay: Self.nanoseconds(connectionAttemptDelay, within: 0.01...2))
        }

        /// What the DNS cache keeps, and for how long.
        var dnsCachePolicy: DNSCache.Policy {
            let ceiling = Self.nanoseconds(dnsCacheMaximumTimeToLive, within: 0...86_400)
            let floor = min(Self.nanoseconds(dnsCacheMinimumTimeToLive, within: 0...86_400), ceiling)
            return DNSCache.Policy(
                minimumTimeToLive: .nanoseconds(Int64(floor)), maximumTimeToLive: .nanoseconds(Int64(ceiling)),
                failureTimeToLive: .nanoseconds(Int64(min(2_000_000_000, ceiling))))
        }

        /// Seconds as nanoseconds, clamped to `bounds` (NaN is the lower bound).
        private static func nanoseconds(_ seconds: Double, within bounds: ClosedRange<Double>) -> UInt64 {
            UInt64((seconds.isNaN ? bounds.lowerBound : min(max(seconds, bounds.lowerBound), bounds.upperBound)) * 1e9)
        }

        /// ``responsePollWindow`` in nanoseconds, within 0 and 10 ms.
        var responsePollNanoseconds: UInt64 {
            guard responsePollWindow.isFinite, responsePollWindow > 0 else { return 0 }
            return UInt64(min(responsePollWindow, 0.01) * 1e9)
        }
    }
}
