extension TestServer {
    /// Counters describing what a ``TestServer`` has seen, for asserting on concurrency and cancellation.
    ///
    /// ```swift
    /// #expect(server.stats.peakActiveRequests <= 4)
    /// #expect(server.stats.abortedRequests == 1)
    /// ```
    public struct Stats: Sendable, Equatable, CustomStringConvertible {
        /// TCP connections accepted.
        public var totalConnections = 0
        /// TCP connections open right now.
        public var openConnections = 0
        /// The most TCP connections that were open at the same time.
        public var peakConnections = 0
        /// Requests whose head has arrived and whose response is not yet fully written.
        ///
        /// The count drops just after the last byte is written, so a client can hold its response a moment
        /// before the server counts the request finished; poll rather than assert right away.
        public var activeRequests = 0
        /// The most requests that were active at the same time.
        public var peakActiveRequests = 0
        /// Requests received completely (head and body); equals the number of entries in ``TestServer/requests``.
        public var requestCount = 0
        /// Requests whose client went away after the request head arrived but before the response was fully
        /// written: during the body upload, a delay, a streamed response, or a failed write.
        public var abortedRequests = 0
        /// Malformed or over-limit requests answered with a `4xx`/`5xx` error by the server itself.
        public var rejectedRequests = 0

        /// Creates zeroed counters.
        ///
        /// ```swift
        /// #expect(server.stats == TestServer.Stats())
        /// ```
        public init() {}

        /// A one-line summary of every counter.
        public var description: String {
            "connections \(openConnections) open, \(peakConnections) peak, \(totalConnections) total; "
                + "requests \(activeRequests) active, \(peakActiveRequests) peak, \(requestCount) received, "
                + "\(abortedRequests) aborted, \(rejectedRequests) rejected"
        }
    }
}
