extension RequestMetrics.Attempt {
    /// An attempt's instants after its start, as durations from it: what ``RequestMetrics/Attempt`` stores, and
    /// what a transport that reads its own clock sets directly.
    ///
    /// ```swift
    /// var attempt = RequestMetrics.Attempt(url: url, start: .now)
    /// attempt.offsets.firstResponseByte = .milliseconds(3)
    /// ```
    package struct Offsets: Sendable, Hashable {
        /// From the start to the end of one phase.
        package struct Span: Sendable, Hashable {
            /// When the phase began.
            package var start: Duration
            /// When the phase ended.
            package var end: Duration

            /// A phase from `start` to `end` after the attempt's start.
            package init(start: Duration, end: Duration) {
                self.start = start
                self.end = end
            }
        }

        /// ``RequestMetrics/Attempt/end``.
        package var end: Duration?
        /// ``RequestMetrics/Attempt/poolWait``.
        package var poolWait: Span?
        /// ``RequestMetrics/Attempt/domainLookup``.
        package var domainLookup: Span?
        /// ``RequestMetrics/Attempt/connect``.
        package var connect: Span?
        /// ``RequestMetrics/Attempt/tlsHandshake``.
        package var tlsHandshake: Span?
        /// ``RequestMetrics/Attempt/requestSent``.
        package var requestSent: Span?
        /// ``RequestMetrics/Attempt/firstResponseByte``.
        package var firstResponseByte: Duration?
        /// ``RequestMetrics/Attempt/responseComplete``.
        package var responseComplete: Duration?

        /// No instant known yet.
        package init() {}

        /// Every offset `by` later: what keeps each instant in place when the start moves `by` earlier.
        mutating func shift(by change: Duration) {
            guard change != .zero else { return }
            func moved(_ span: Span?) -> Span? { span.map { Span(start: $0.start + change, end: $0.end + change) } }
            end = end.map { $0 + change }
            poolWait = moved(poolWait)
            domainLookup = moved(domainLookup)
            connect = moved(connect)
            tlsHandshake = moved(tlsHandshake)
            requestSent = moved(requestSent)
            firstResponseByte = firstResponseByte.map { $0 + change }
            responseComplete = responseComplete.map { $0 + change }
        }
    }
}
