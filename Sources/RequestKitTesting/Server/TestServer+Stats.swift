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
        /// Requests whose head has arrived and whose response is not yet fully written.
        ///
        /// The count drops just after the last byte is written, so a client can hold its response a moment
        /// before the server counts the request finished; use ``TestServer/waitUntil(timeout:_:)``.
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
