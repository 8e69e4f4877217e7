extension TestServer {
    /// Counters describing what a ``TestServer`` has seen, for asserting on concurrency and cancellation.
    ///
    /// ```swift
    /// #expect(server.stats.peakActiveRequests <= 4)
    /// #expect(server.stats.abortedRequests == 1)
    /// ```
    public struct Stats: Sendable, Equatable, CustomStringConvertible {
        /// TCP connections accepted.
        ///
        /// ```swift
        /// #expect(server.stats.totalConnections == 1)  // every request reused one connection
        /// ```
        public var totalConnections = 0
        /// TCP connections open right now.
        ///
        /// ```swift
        /// #expect(await server.waitUntil { $0.openConnections == 0 })
        /// ```
        public var openConnections = 0
        /// The most TCP connections that were open at the same time.
        ///
        /// ```swift
        /// #expect(server.stats.peakConnections <= 6)  // the client pool limit held
        /// ```
        public var peakConnections = 0
        /// Requests whose head has arrived and whose response is not yet complete.
        ///
        /// The count drops just before the bytes that complete the response are written (the whole of a body of up
        /// to 64 KiB, the last part of a longer one, the last chunk of a chunked one), so a client that has its
        /// answer and starts its next request never finds the previous one still counted, and
        /// ``peakActiveRequests`` is never above the client's own concurrency. For a streamed body with a
        /// `Content-Length` or a raw one, the server cannot see the end coming, and the count drops just after.
        ///
        /// ```swift
        /// #expect(server.stats.activeRequests == 0)
        /// ```
        public var activeRequests = 0
        /// The most requests that were active at the same time.
        ///
        /// ```swift
        /// #expect(server.stats.peakActiveRequests == 4)  // four requests ran in parallel
        /// ```
        public var peakActiveRequests = 0
        /// Requests received completely (head and body); equals the number of entries in ``TestServer/requests``.
        ///
        /// ```swift
        /// #expect(server.stats.requestCount == 3)  // two retries after the first attempt
        /// ```
        public var requestCount = 0
        /// Requests whose client went away after the request head arrived but before the response was fully
        /// written: during the body upload, a delay, a streamed response, or a failed write.
        ///
        /// ```swift
        /// #expect(server.stats.abortedRequests == 1)  // the cancelled request was seen
        /// ```
        public var abortedRequests = 0
        /// Malformed or over-limit requests answered with a `4xx`/`5xx` error by the server itself.
        ///
        /// ```swift
        /// #expect(server.stats.rejectedRequests == 0)  // the client sent nothing malformed
        /// ```
        public var rejectedRequests = 0
        /// TLS connections (in the TLS mode) whose handshake resumed an earlier session instead of a full one.
        ///
        /// ```swift
        /// #expect(server.stats.resumedTLSSessions == 1)  // the reconnect resumed the first session
        /// ```
        public var resumedTLSSessions = 0

        /// Creates zeroed counters.
        ///
        /// ```swift
        /// #expect(server.stats == TestServer.Stats())
        /// ```
        public init() {}

        /// A one-line summary of every counter.
        ///
        /// ```swift
        /// print(server.stats)
        /// ```
        public var description: String {
            "connections \(openConnections) open, \(peakConnections) peak, \(totalConnections) total; "
                + "requests \(activeRequests) active, \(peakActiveRequests) peak, \(requestCount) received, "
                + "\(abortedRequests) aborted, \(rejectedRequests) rejected"
        }
    }
}
