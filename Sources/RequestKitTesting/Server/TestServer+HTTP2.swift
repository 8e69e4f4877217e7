extension TestServer {
    /// The HTTP/2 mode of a ``TestServer`` (Linux, where the system nghttp2 frames it): the same routes, answered
    /// on streams of one connection.
    ///
    /// Over HTTP/2 a route's response goes out as a `HEADERS` frame (names in lower case, without the HTTP/1.1
    /// connection fields `Connection`, `Keep-Alive`, `Transfer-Encoding` and `Upgrade`) and `DATA` frames as the
    /// client's windows allow; chunked and streamed bodies arrive as they are written, with their pauses, and
    /// trailers as a last `HEADERS` frame. A request carries its `:authority` as a `Host` header and
    /// ``TestRequest/httpVersion`` `"HTTP/2.0"`. A raw response (``TestResponse/Body/raw(_:)``), which is HTTP/1.1
    /// bytes followed by the end of the connection, and a body that closes the connection close it at once, as a
    /// server that died would, cutting every stream on it.
    ///
    /// ```swift
    /// let server = try TestServer {
    ///     $0.tls = TestServer.TLS()
    ///     $0.http2 = TestServer.HTTP2(maxConcurrentStreams: 1)
    /// }
    /// ```
    public struct HTTP2: Sendable {
        /// The `SETTINGS_MAX_CONCURRENT_STREAMS` the server announces: how many requests a client may have open
        /// on one connection at once.
        ///
        /// ```swift
        /// let http2 = TestServer.HTTP2(maxConcurrentStreams: 4)  // a fifth request waits, or opens a connection
        /// ```
        public var maxConcurrentStreams: Int

        /// Creates the HTTP/2 mode.
        ///
        /// ```swift
        /// let server = try TestServer { $0.http2 = TestServer.HTTP2() }  // h2c with prior knowledge
        /// ```
        /// - Parameter maxConcurrentStreams: Streams a client may open at once; 100 by default.
        public init(maxConcurrentStreams: Int = 100) {
            self.maxConcurrentStreams = maxConcurrentStreams
        }

        /// Whether this platform's build can serve HTTP/2 (it frames it with the system nghttp2, on Linux).
        static var isSupported: Bool {
            #if canImport(CNghttp2)
            true
            #else
            false
            #endif
        }
    }
}
