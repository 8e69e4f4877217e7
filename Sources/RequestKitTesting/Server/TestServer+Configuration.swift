extension TestServer {
    /// Limits and timeouts for a ``TestServer``.
    ///
    /// ```swift
    /// var configuration = TestServer.Configuration()
    /// configuration.keepAliveTimeout = .milliseconds(200)
    /// let server = try TestServer(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The most bytes accepted for the request line plus headers (and for a chunked body's trailers).
        ///
        /// A longer request line is answered with `414`, longer headers with `431`.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(maxHeaderBytes: 1024)
        /// ```
        public var maxHeaderBytes: Int
        /// The largest request body accepted; larger bodies are answered with `413`.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(maxBodyBytes: 10)  // an 11-byte upload gets 413
        /// ```
        public var maxBodyBytes: Int
        /// How long an idle kept-alive connection stays open waiting for its next request.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(keepAliveTimeout: .milliseconds(100))
        /// ```
        public var keepAliveTimeout: Duration
        /// How long the server waits for the rest of a request once it has started arriving; then it sends `408`.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(readTimeout: .seconds(1))
        /// ```
        public var readTimeout: Duration
        /// The most requests served on one connection before the server closes it, or `nil` for no limit.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(maxRequestsPerConnection: 1)  // no reuse
        /// ```
        public var maxRequestsPerConnection: Int?
        /// The length of the queue of connections waiting to be accepted.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(listenBacklog: 1024)
        /// ```
        public var listenBacklog: Int
        /// The TLS mode: serve `https://` with this certificate; `nil` (plain HTTP) by default.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(tls: .init(certificate: .selfSigned))
        /// ```
        public var tls: TLS?
        /// HTTP/2 as well as HTTP/1.1 (on Linux): a plain connection that opens with the HTTP/2 preface speaks h2c
        /// (prior knowledge), and in the TLS mode ALPN picks `h2` when the client offers it. `nil` (HTTP/1.1 only) by
        /// default. Every route answers over both; see ``TestServer/HTTP2`` for what differs.
        ///
        /// ```swift
        /// let server = try TestServer { $0.tls = TestServer.TLS(); $0.http2 = TestServer.HTTP2() }
        /// ```
        public var http2: HTTP2?

        /// Creates a configuration; every parameter has a default suited to tests.
        ///
        /// ```swift
        /// let configuration = TestServer.Configuration(maxBodyBytes: 1024, maxRequestsPerConnection: 1)
        /// ```
        /// - Parameters:
        ///   - maxHeaderBytes: The request line plus headers limit; 64 KiB by default.
        ///   - maxBodyBytes: The request body limit; 64 MiB by default.
        ///   - keepAliveTimeout: The idle time before a kept-alive connection is closed; 60 seconds by default,
        ///     so a test on a busy machine never finds its connection closed between two of its requests.
        ///   - readTimeout: The time allowed for a started request to arrive; two minutes by default.
        ///   - maxRequestsPerConnection: Requests served per connection; unlimited by default.
        ///   - listenBacklog: The accept queue length; 512 by default.
        ///   - tls: The TLS mode; plain HTTP by default.
        ///   - http2: HTTP/2 beside HTTP/1.1; off by default.
        public init(
            maxHeaderBytes: Int = 64 * 1024,
            maxBodyBytes: Int = 64 * 1024 * 1024,
            keepAliveTimeout: Duration = .seconds(60),
            readTimeout: Duration = .seconds(120),
            maxRequestsPerConnection: Int? = nil,
            listenBacklog: Int = 512,
            tls: TLS? = nil,
            http2: HTTP2? = nil
        ) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxBodyBytes = maxBodyBytes
            self.keepAliveTimeout = keepAliveTimeout
            self.readTimeout = readTimeout
            self.maxRequestsPerConnection = maxRequestsPerConnection
            self.listenBacklog = listenBacklog
            self.tls = tls
            self.http2 = http2
        }
    }
}
