import Foundation

extension RequestMetrics {
    /// One trip to the network: its phases as its transport saw them, its byte counts and its connection.
    ///
    /// A phase the attempt did not go through is nil: a reused connection has no ``domainLookup``, ``connect`` or
    /// ``tlsHandshake``; a numeric host has no ``domainLookup``; a plain connection no ``tlsHandshake``.
    ///
    /// ```swift
    /// for attempt in response.metrics.attempts {
    ///     print(attempt.status.map(String.init(describing:)) ?? "failed", attempt.timeline)
    /// }
    /// ```
    public struct Attempt: Sendable, Hashable {
        /// The URL this attempt asked for.
        public var url: URL?
        /// When the attempt was handed to the transport. Changing it leaves the other instants where they are.
        public var start: ContinuousClock.Instant {
            get { origin }
            set {
                offsets.shift(by: newValue.duration(to: origin))
                origin = newValue
            }
        }
        /// When it ended: its body whole, or its failure; nil while a streamed body is still being read.
        public var end: ContinuousClock.Instant? {
            get { offsets.end.map(instant) }
            set { offsets.end = newValue.map(offset) }
        }
        /// Waiting for a connection of the pool to come free, or to be made.
        public var poolWait: Interval? {
            get { offsets.poolWait.map(interval) }
            set { offsets.poolWait = newValue.map(span) }
        }
        /// Resolving the host name.
        public var domainLookup: Interval? {
            get { offsets.domainLookup.map(interval) }
            set { offsets.domainLookup = newValue.map(span) }
        }
        /// Opening the TCP connection (every address tried).
        public var connect: Interval? {
            get { offsets.connect.map(interval) }
            set { offsets.connect = newValue.map(span) }
        }
        /// The TLS handshake.
        public var tlsHandshake: Interval? {
            get { offsets.tlsHandshake.map(interval) }
            set { offsets.tlsHandshake = newValue.map(span) }
        }
        /// Writing the request's head and body.
        public var requestSent: Interval? {
            get { offsets.requestSent.map(interval) }
            set { offsets.requestSent = newValue.map(span) }
        }
        /// When the first byte of the response arrived.
        public var firstResponseByte: ContinuousClock.Instant? {
            get { offsets.firstResponseByte.map(instant) }
            set { offsets.firstResponseByte = newValue.map(offset) }
        }
        /// When the response's body was whole.
        public var responseComplete: ContinuousClock.Instant? {
            get { offsets.responseComplete.map(instant) }
            set { offsets.responseComplete = newValue.map(offset) }
        }
        /// Bytes written to the connection: the head and the body as framed (chunked framing included).
        public var bytesSent: Int?
        /// Bytes read from the connection for this response: head and body as they came, before decoding.
        public var bytesReceived: Int?
        /// The response body's bytes after `Content-Encoding` was decoded.
        public var bodyBytesReceived: Int?
        /// Whether the request went on a connection an earlier request had used.
        public var isReusedConnection: Bool?
        /// The protocol spoken, as ALPN names it (`http/1.1`).
        public var networkProtocol: String?
        /// What the TLS connection negotiated; nil on a plain connection.
        public var tls: TLS?
        /// This side's address and port (`127.0.0.1:53012`).
        public var localAddress: String?
        /// The server's address and port (`127.0.0.1:8080`, `[::1]:8443`).
        public var remoteAddress: String?
        /// Every address the attempt's new connection tried, in the order tried, and how each ended: the race of
        /// the host's IPv6 and IPv4 addresses (Happy Eyeballs). Empty on a reused connection, and where the transport
        /// does not say (URLSession).
        ///
        /// ```swift
        /// for tried in attempt.addressAttempts where tried.outcome != .connected {
        ///     print("tried \(tried.address) first: \(tried.outcome)")
        /// }
        /// ```
        public var addressAttempts: [AddressAttempt] = []
        /// The response's status; nil when the attempt failed before one.
        public var status: HTTPStatus?
        /// The W3C `traceparent` the attempt was sent with (``TraceContext``); nil without one.
        public var traceparent: String?

        /// ``start``, from which ``offsets`` count.
        private var origin: ContinuousClock.Instant
        /// Every other instant, as a duration from ``origin``: `ContinuousClock.Instant` comes from a resilient
        /// module, so each optional instant stored would go through value witnesses on every response.
        package var offsets = Offsets()

        /// The trace id of ``traceparent`` (32 hex digits).
        ///
        /// ```swift
        /// print(attempt.traceID ?? "not traced")
        /// ```
        public var traceID: String? { traceparentField(1) }

        /// The span id of ``traceparent`` (16 hex digits): this request's own.
        ///
        /// ```swift
        /// print(attempt.spanID ?? "not traced")
        /// ```
        public var spanID: String? { traceparentField(2) }

        /// One dash-separated field of ``traceparent``.
        private func traceparentField(_ index: Int) -> String? {
            guard let fields = traceparent?.split(separator: "-"), fields.count > index else { return nil }
            return String(fields[index])
        }

        /// Creates an attempt that started at `start`; every other field starts unknown.
        ///
        /// ```swift
        /// var attempt = RequestMetrics.Attempt(url: url, start: .now)
        /// attempt.end = .now
        /// ```
        public init(url: URL?, start: ContinuousClock.Instant) {
            self.url = url
            origin = start
        }

        /// From the request written whole to the first byte of the response.
        ///
        /// ```swift
        /// if let wait = attempt.waitingForResponse { print("the server took \(wait)") }
        /// ```
        public var waitingForResponse: Duration? {
            guard let sent = offsets.requestSent?.end, let firstResponseByte = offsets.firstResponseByte else {
                return nil
            }
            return firstResponseByte - sent
        }

        /// From the first byte of the response to its body whole.
        ///
        /// ```swift
        /// if let body = attempt.receivingResponse { print("reading took \(body)") }
        /// ```
        public var receivingResponse: Duration? {
            guard let firstResponseByte = offsets.firstResponseByte, let responseComplete = offsets.responseComplete
            else { return nil }
            return responseComplete - firstResponseByte
        }

        /// From ``start`` to ``end``; nil while a streamed body is still being read.
        ///
        /// ```swift
        /// if let total = attempt.duration { print(total) }
        /// ```
        public var duration: Duration? { offsets.end }

        /// The phases on one line, in milliseconds, leaving out those the attempt did not go through:
        /// `pool 0.0 ms · dns 0.2 ms · connect 0.1 ms · tls 1.9 ms · send 0.0 ms · wait 0.4 ms · body 0.1 ms`.
        ///
        /// ```swift
        /// print(attempt.timeline)
        /// ```
        public var timeline: String {
            let phases: [(String, Duration?)] = [
                ("pool", poolWait?.duration), ("dns", domainLookup?.duration), ("connect", connect?.duration),
                ("tls", tlsHandshake?.duration), ("send", requestSent?.duration), ("wait", waitingForResponse),
                ("body", receivingResponse),
            ]
            let shown = phases.compactMap { name, duration in duration.map { "\(name) \(Self.milliseconds($0)) ms" } }
            if shown.isEmpty, let duration { return "total \(Self.milliseconds(duration)) ms" }
            return shown.joined(separator: " · ")
        }

        private func instant(_ offset: Duration) -> ContinuousClock.Instant { origin.advanced(by: offset) }

        private func offset(_ instant: ContinuousClock.Instant) -> Duration { origin.duration(to: instant) }

        private func interval(_ span: Offsets.Span) -> Interval {
            Interval(start: instant(span.start), end: instant(span.end))
        }

        private func span(_ interval: Interval) -> Offsets.Span {
            Offsets.Span(start: offset(interval.start), end: offset(interval.end))
        }

        /// A duration in milliseconds with one decimal.
        static func milliseconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            let tenths = (Double(seconds) * 1e4 + Double(attoseconds) / 1e14).rounded()
            return String(format: "%.1f", tenths / 10)
        }
    }
}
