import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that records real exchanges into a HAR 1.2 cassette once, and replays them in tests afterwards.
///
/// It wraps any transport (`NativeTransport.shared` unless given). In ``RecordingMode/replayOnly`` (the default)
/// it never touches the network: each request is answered by the recorded exchange it matches (see
/// ``ReplayMatching``), identical requests in the order they were recorded, and a request the cassette does not
/// hold fails with a `RequestError` naming it, the closest recorded request and what differs. Secrets are
/// redacted before anything is stored (see ``ReplayRedaction``). The cassette is written after each recorded
/// exchange.
///
/// ```swift
/// let transport = try RecordingTransport(cassette: cassettes.appendingPathComponent("todos.har"), mode: .recordOnce)
/// let todos = try await AnyRequest<[Todo]> {
///     Url("https://api.example.com/todos")
///     Using(transport)
/// }.value()
/// ```
///
/// The environment variable `REQUESTKIT_RECORD_MODE` overrides the mode given here (``RecordingMode``).
public final class RecordingTransport: Transport {
    /// The cassette's HAR file.
    public let cassetteURL: URL
    /// The mode in effect: the one given, unless the environment overrides it.
    public let mode: RecordingMode
    /// How exchanges are matched, redacted and stored.
    public let configuration: Configuration

    let base: any Transport
    let sideFiles: SideFiles
    let behavior: Behavior
    let cassette: Locked<Cassette>

    /// What the transport does, once ``RecordingMode/recordOnce`` has looked for the cassette.
    enum Behavior {
        case replay, recordNew, recordAll, passthrough
    }

    /// A transport over the cassette at `cassette`.
    ///
    /// ```swift
    /// let transport = try RecordingTransport(cassette: url, mode: .recordNew, base: URLSessionTransport.shared)
    /// ```
    /// - Parameters:
    ///   - cassette: The HAR file; its folder is created when the first exchange is recorded.
    ///   - mode: What to do with it, unless `REQUESTKIT_RECORD_MODE` says otherwise.
    ///   - base: The transport that sends what is recorded.
    ///   - configuration: Matching, redaction and storage.
    /// - Throws: `RequestError` when the cassette is needed but cannot be read, or the environment names no mode.
    public convenience init(
        cassette: URL, mode: RecordingMode = .replayOnly, base: any Transport = NativeTransport.shared,
        configuration: Configuration = Configuration()
    ) throws(RequestError) {
        try self.init(
            cassette: cassette, mode: mode, base: base, configuration: configuration,
            environment: ProcessInfo.processInfo.environment)
    }

    /// A transport whose mode override is read from `environment`.
    init(
        cassette url: URL, mode: RecordingMode, base: any Transport, configuration: Configuration,
        environment: [String: String]
    ) throws(RequestError) {
        let mode = try RecordingMode.effective(mode, environment: environment)
        let sideFiles = SideFiles(cassette: url, threshold: configuration.largeBodyThreshold)
        let exists = Cassette.exists(at: url)
        let behavior: Behavior
        switch mode.behavior {
        case .replayOnly: behavior = .replay
        case .recordOnce: behavior = exists ? .replay : .recordAll
        case .recordNew: behavior = .recordNew
        case .recordAll: behavior = .recordAll
        case .passthrough: behavior = .passthrough
        }
        let loaded: Cassette
        switch behavior {
        case .replay:
            guard exists else {
                throw ReplayFailure.error(
                    "the cassette \(url.path) does not exist; record it with mode .recordOnce, or run with "
                        + "\(RecordingMode.environmentVariable)=recordOnce")
            }
            loaded = try Cassette(contentsOf: url, sideFiles: sideFiles)
        case .recordNew:
            loaded =
                exists ? try Cassette(contentsOf: url, sideFiles: sideFiles) : Cassette(url: url, sideFiles: sideFiles)
        case .recordAll, .passthrough:
            loaded = Cassette(url: url, sideFiles: sideFiles)
        }
        self.cassetteURL = url
        self.mode = mode
        self.configuration = configuration
        self.base = base
        self.sideFiles = sideFiles
        self.behavior = behavior
        self.cassette = Locked(loaded)
    }

    /// Answers from the cassette, or sends through the base transport and records the exchange, as the mode says;
    /// the body streams as it was recorded: in the same chunks.
    ///
    /// ```swift
    /// let streaming = try await transport.stream(TransferRequest(URLRequest(url: eventsURL)))
    /// ```
    public func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        if behavior == .passthrough { return try await base.stream(request) }
        let sent = try capture(request)
        if let entry = try lookUp(sent) { return try replayStream(entry, url: request.url) }
        return try await recordStream(request, sent: sent)
    }

    /// Answers from the cassette, or sends through the base transport and records the exchange, as the mode says.
    ///
    /// ```swift
    /// let response = try await transport.send(TransferRequest(URLRequest(url: todosURL)))
    /// ```
    public func send(_ request: TransferRequest) async throws -> Response {
        if behavior == .passthrough { return try await base.send(request) }
        let sent = try capture(request)
        if let entry = try lookUp(sent) { return try replaySend(entry, url: request.url) }
        return try await recordSend(request, sent: sent)
    }

    /// The entry answering `sent`, or nil when it should be sent and recorded.
    func lookUp(_ sent: RecordedRequest) throws(RequestError) -> HAREntry? {
        guard behavior != .recordAll else { return nil }
        let redacted = configuration.redaction.redacted(sent)
        let matching = configuration.matching
        let selection = cassette.withLock { cassette -> Result<HAREntry, RequestError>? in
            switch cassette.select(redacted, matching: matching) {
            case .entry(let index): return .success(cassette.entry(at: index))
            case .mismatch(let message):
                return behavior == .replay ? .failure(ReplayFailure.error("RecordingTransport: \(message)")) : nil
            }
        }
        return try selection?.get()
    }

    /// The request as it is about to be sent, its body read (a body sent from a file is digested, unless
    /// file bodies are recorded).
    private func capture(_ request: TransferRequest) throws(RequestError) -> RecordedRequest {
        guard var recorded = RecordedRequest(request.urlRequest) else {
            throw ReplayFailure.error("RecordingTransport got a request without a URL")
        }
        guard let body = request.body else { return recorded }
        if body.isInMemory {
            recorded.body = body.data
            return recorded
        }
        if configuration.recordsFileBodies {
            var whole = Data()
            try Self.read(body) { whole.append($0) }
            recorded.body = whole
            return recorded
        }
        var digest = SHA256Digest()
        var size = 0
        try Self.read(body) { block in
            digest.update(block)
            size += block.count
        }
        recorded.fileDigest = RecordedRequest.FileDigest(sha256: "sha256:\(digest.finalizeHex())", size: size)
        return recorded
    }

    /// Reads a body from files block by block, without reporting upload progress.
    private static func read(_ body: RequestBody, _ consume: (Data) -> Void) throws(RequestError) {
        let reader = try body.makeReader()
        while let block = try reader.read(upTo: 1 << 20) { consume(block) }
    }
}
