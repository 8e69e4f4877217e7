import Foundation

extension HTTP1Transport {
    /// How an ``HTTP1Transport`` connects, pools and limits.
    ///
    /// ```swift
    /// var configuration = HTTP1Transport.Configuration()
    /// configuration.maxConnectionsPerHost = 4
    /// configuration.connectTimeout = 2
    /// let transport = HTTP1Transport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The most connections open to one host and port at once; further requests wait for one. 16 by default.
        public var maxConnectionsPerHost = 16
        /// How long, in seconds, an idle kept-alive connection stays in the pool before it is closed. 60 by
        /// default.
        public var idleConnectionTimeout: Double = 60
        /// How long, in seconds, opening a connection may take. 10 by default.
        public var connectTimeout: Double = 10
        /// Whether redirects (301, 302, 303, 307, 308) are followed. `true` by default.
        public var followsRedirects = true
        /// The most redirects followed for one request before it fails. 20 by default, as URLSession.
        public var maxRedirects = 20
        /// The largest response head (status line and headers), in bytes. 64 KiB by default.
        public var maxResponseHeadBytes = 64 * 1024
        /// The most header fields a response may have. 100 by default.
        public var maxResponseHeaderCount = 100
        /// The largest response body, in bytes, after decompression. 1 GiB by default.
        public var maxResponseBodyBytes = 1 << 30
        /// Where `https` requests go, since this transport speaks plain TCP only.
        /// ``URLSessionTransport/shared`` by default.
        public var secureTransport: any Transport = URLSessionTransport.shared

        /// The default configuration.
        ///
        /// ```swift
        /// let configuration = HTTP1Transport.Configuration()
        /// ```
        public init() {}

        var limits: HTTP1Limits {
            var limits = HTTP1Limits()
            limits.head.maxHeadBytes = max(1024, maxResponseHeadBytes)
            limits.head.maxFields = max(1, maxResponseHeaderCount)
            limits.body.maxBodyBytes = max(0, maxResponseBodyBytes)
            return limits
        }
    }
}
