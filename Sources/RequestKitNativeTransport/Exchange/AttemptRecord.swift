import Foundation
import RequestKitConnect
import RequestKitModel

/// What a job's connections saw of its phases, as ``EventLoop/now()`` nanoseconds (0: not reached), turned
/// into a ``RequestMetrics/Attempt`` when the transport hands the outcome over.
///
/// Raw clock readings, because the connection already reads that clock where the phases change; one reading of the
/// continuous clock, when the job is made, places them all on it. That reading is kept as a `Duration` from
/// ``anchor``: a `ContinuousClock.Instant` (from a resilient module) would make every copy of the record go through
/// value witnesses.
struct AttemptRecord: Sendable {
    /// When the job was made, on both clocks.
    let started: UInt64
    let startSinceAnchor: Duration
    /// Whether the phases are recorded (``NativeTransport/Configuration/recordsMetrics``).
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
    var connection: ConnectionFacts?
    /// The addresses the connector tried, when it opened the job's connection.
    var addressAttempts: [ConnectAttemptRecord] = []

    /// A record of a job made at `started` (``EventLoop/now()``), reading the continuous clock once when
    /// `isRecording`.
    init(started: UInt64, isRecording: Bool) {
        self.started = started
        self.isRecording = isRecording
        startSinceAnchor = isRecording ? Self.anchor.duration(to: .now) : .zero
    }

    /// The instant from which records count their start.
    private static let anchor = ContinuousClock.now

    /// When the job was made, on the continuous clock.
    var startInstant: ContinuousClock.Instant { Self.anchor.advanced(by: startSinceAnchor) }

    /// A connection took the job (the pool wait ends the first time). A reused connection sends at once, so
    /// ``noteSendStart(at:)`` ends the wait with its own reading of the clock.
    mutating func assign(isReused: Bool, at now: UInt64) {
        guard isRecording else { return }
        if assigned == 0, !isReused { assigned = now }
        self.isReused = isReused
    }

    /// What the connector that opened the job's connection saw of its phases.
    mutating func noteConnect(_ times: Connector.Times) {
        guard isRecording else { return }
        lookupStart = times.lookupStart
        lookupEnd = times.lookupEnd
        connectStart = times.connectStart
        connectEnd = times.connectEnd
        handshakeStart = times.handshakeStart
        handshakeEnd = times.handshakeEnd
        addressAttempts = times.addressAttempts
    }

    /// The request's head is about to be written.
    mutating func noteSendStart(at now: UInt64) {
        guard isRecording else { return }
        sendStart = now
        if assigned == 0 { assigned = sendStart }
    }

    /// The response's body was whole at `now`: when the connection read its last bytes.
    mutating func noteComplete(at now: UInt64) {
        if isRecording { complete = now }
    }

    /// `count` response bytes were read at `now`.
    mutating func received(_ count: Int, at now: UInt64) {
        if firstByte == 0 { firstByte = now }
        bytesReceived += count
    }

    /// Forgets what an earlier connection saw, when the job is sent again on a new one; its pool wait stays.
    mutating func restart() {
        self = AttemptRecord(keepingStartOf: self)
    }

    private init(keepingStartOf record: AttemptRecord) {
        started = record.started
        startSinceAnchor = record.startSinceAnchor
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
            attempt.networkProtocol = connection.networkProtocol
            attempt.tls = connection.tls
            attempt.localAddress = connection.localAddress
            attempt.remoteAddress = connection.remoteAddress
        }
        attempt.addressAttempts = addressAttempts.compactMap(addressAttempt)
        attempt.status = status
        return attempt
    }

    /// A tried address as the metrics show it; nil while it is pending (never, once the connector ended).
    private func addressAttempt(_ record: ConnectAttemptRecord) -> RequestMetrics.AddressAttempt? {
        guard let outcome = record.outcome, let ended = record.ended else { return nil }
        let shown: RequestMetrics.AddressAttempt.Outcome =
            switch outcome {
            case .connected: .connected
            case .failed(let code): .failed(code)
            case .lostRace: .lostRace
            case .timedOut: .timedOut
            case .abandoned: .cancelled
            }
        let interval = RequestMetrics.Interval(
            start: startInstant.advanced(by: offset(record.started)), end: startInstant.advanced(by: offset(ended)))
        return RequestMetrics.AddressAttempt(address: record.address.description, interval: interval, outcome: shown)
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

/// What a connection knows of itself once open: its addresses and what its TLS handshake negotiated. Shared by
/// reference, so that a record copied per request holds one pointer to it rather than its five strings.
final class ConnectionFacts: Sendable {
    let localAddress: String?
    let remoteAddress: String?
    let tls: RequestMetrics.TLS?
    /// The protocol the connection speaks, as ALPN names it (`"http/1.1"`, `"h2"`).
    let networkProtocol: String

    init(
        localAddress: String?, remoteAddress: String?, tls: RequestMetrics.TLS? = nil,
        networkProtocol: String = "http/1.1"
    ) {
        self.localAddress = localAddress
        self.remoteAddress = remoteAddress
        self.tls = tls
        self.networkProtocol = networkProtocol
    }

    /// These facts with what the TLS handshake negotiated.
    func negotiated(_ tls: RequestMetrics.TLS?) -> ConnectionFacts {
        ConnectionFacts(
            localAddress: localAddress, remoteAddress: remoteAddress, tls: tls, networkProtocol: networkProtocol)
    }

    /// These facts for a connection that speaks `networkProtocol`.
    func speaking(_ networkProtocol: String) -> ConnectionFacts {
        ConnectionFacts(
            localAddress: localAddress, remoteAddress: remoteAddress, tls: tls, networkProtocol: networkProtocol)
    }
}
