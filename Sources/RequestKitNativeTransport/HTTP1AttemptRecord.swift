import Foundation

/// What a job's connections saw of its phases, as ``HTTP1EventLoop/now()`` nanoseconds (0: not reached), turned
/// into a ``RequestMetrics/Attempt`` when the transport hands the outcome over.
///
/// Raw clock readings, because the connection already reads that clock where the phases change; one reading of the
/// continuous clock, when the job is made, places them all on it.
struct HTTP1AttemptRecord: Sendable {
    /// When the job was made, on both clocks.
    let started: UInt64
    let startInstant: ContinuousClock.Instant
    /// Whether the phases are recorded (``HTTP1Transport/Configuration/recordsMetrics``).
    let isRecording: Bool
    var assigned: UInt64 = 0
    var lookupStart: UInt64 = 0
    var lookupEnd: UInt64 = 0
    var connectStart: UInt64 = 0
    var connectEnd: UInt64 = 0
    var handshakeStart: UInt64 = 0
    var handshakeEnd: UInt64 = 0
    var sendStart: UInt64 = 0
    var sendEnd: UInt64 = 0
    var firstByte: UInt64 = 0
    var complete: UInt64 = 0
    var bytesSent = 0
    var bytesReceived = 0
    var isReused: Bool?
    var connection: HTTP1ConnectionFacts?

    /// A record of a job made at `started` (``HTTP1EventLoop/now()``), reading the continuous clock once when
    /// `isRecording`.
    init(started: UInt64, isRecording: Bool) {
        self.started = started
        self.isRecording = isRecording
        startInstant = isRecording ? .now : Self.unrecorded
    }

    /// The start of a record that records nothing.
    private static let unrecorded = ContinuousClock.now

    /// A connection took the job (the pool wait ends the first time).
    mutating func assign(isReused: Bool) {
        guard isRecording else { return }
        if assigned == 0 { assigned = HTTP1EventLoop.now() }
        self.isReused = isReused
    }

    /// The request's head is about to be written.
    mutating func noteSendStart() {
        if isRecording { sendStart = HTTP1EventLoop.now() }
    }

    /// The response's body is whole.
    mutating func noteComplete() {
        if isRecording { complete = HTTP1EventLoop.now() }
    }

    /// `count` response bytes were read at `now`.
    mutating func received(_ count: Int, at now: UInt64) {
        if firstByte == 0 { firstByte = now }
        bytesReceived += count
    }

    /// Forgets what an earlier connection saw, when the job is sent again on a new one; its pool wait stays.
    mutating func restart() {
        self = HTTP1AttemptRecord(keepingStartOf: self)
    }

    private init(keepingStartOf record: HTTP1AttemptRecord) {
        started = record.started
        startInstant = record.startInstant
        isRecording = record.isRecording
        assigned = record.assigned
    }

    /// The attempt as the metrics show it, ended `end` (nil while a body streams).
    func attempt(url: URL?, status: HTTPStatus?, bodyBytes: Int?, end: UInt64?) -> RequestMetrics.Attempt {
        var attempt = RequestMetrics.Attempt(url: url, start: startInstant)
        attempt.offsets.end = end.map(offset)
        attempt.offsets.poolWait = span(started, assigned)
        attempt.offsets.domainLookup = span(lookupStart, lookupEnd)
        attempt.offsets.connect = span(connectStart, connectEnd)
        attempt.offsets.tlsHandshake = span(handshakeStart, handshakeEnd)
        attempt.offsets.requestSent = span(sendStart, sendEnd)
        attempt.offsets.firstResponseByte = firstByte == 0 ? nil : offset(firstByte)
        attempt.offsets.responseComplete = complete == 0 ? nil : offset(complete)
        attempt.bytesSent = bytesSent
        attempt.bytesReceived = bytesReceived
        attempt.bodyBytesReceived = bodyBytes
        attempt.isReusedConnection = isReused
        if let connection {
            attempt.networkProtocol = "http/1.1"
            attempt.tls = connection.tls
            attempt.localAddress = connection.localAddress
            attempt.remoteAddress = connection.remoteAddress
        }
        attempt.status = status
        return attempt
    }

    /// How long after the job was made `nanoseconds` (a reading of the same clock) came.
    private func offset(_ nanoseconds: UInt64) -> Duration {
        .nanoseconds(Int64(bitPattern: nanoseconds &- started))
    }

    private func span(_ start: UInt64, _ end: UInt64) -> RequestMetrics.Attempt.Offsets.Span? {
        guard start != 0, end != 0 else { return nil }
        return RequestMetrics.Attempt.Offsets.Span(start: offset(start), end: offset(end))
    }
}

/// What a connection knows of itself once open: its addresses and what its TLS handshake negotiated.
struct HTTP1ConnectionFacts: Sendable {
    var localAddress: String?
    var remoteAddress: String?
    var tls: RequestMetrics.TLS?
}
