import Foundation

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
        /// loop. Over HTTP/2, whose connection stays the loop's, the only request in flight waits for the loop to
        /// finish it for as long, yielding the processor between looks, and goes on without being woken when it
        /// does (sequential requests about 1.4 times as fast, for more CPU time). Set 0 to keep the thread free of
        /// this work, for example on battery power.
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

        /// Whether responses carry ``RequestMetrics``: always, except to measure what recording them costs (the
        /// metrics benchmark), when the transport reads no clock and builds no attempt for them. Package-level: only
        /// the benchmarks and tests turn it off.
        ///
        /// ```swift
        /// let bare = NativeTransport { $0.recordsMetrics = false }
        /// ```
        package var recordsMetrics = true

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

        /// ``responsePollWindow`` in nanoseconds, within 0 and 10 ms.
        var responsePollNanoseconds: UInt64 {
            guard responsePollWindow.isFinite, responsePollWindow > 0 else { return 0 }
            return UInt64(min(responsePollWindow, 0.01) * 1e9)
        }
    }
}
