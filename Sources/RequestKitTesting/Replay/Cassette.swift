import Foundation
import RequestKit

/// A HAR file as replay uses it: its entries, the requests they match against, and which ones replay has used.
struct Cassette: Sendable {
    /// The HAR file.
    let url: URL
    let sideFiles: SideFiles
    private(set) var log: HARLog
    /// The request of each entry, as replay compares it.
    private(set) var requests: [RecordedRequest]
    private(set) var cursor: ReplayCursor

    /// An empty cassette, to be written at `url`.
    init(url: URL, sideFiles: SideFiles) {
        self.url = url
        self.sideFiles = sideFiles
        log = .empty()
        requests = []
        cursor = ReplayCursor(count: 0)
    }

    /// The cassette at `url`.
    ///
    /// - Throws: `RequestError` naming the file when it cannot be read or is not a HAR file.
    init(contentsOf url: URL, sideFiles: SideFiles) throws(RequestError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ReplayFailure.error("cannot read the cassette \(url.path): \(error)")
        }
        do {
            log = try HARDocument.decoded(from: data).log
        } catch {
            throw ReplayFailure.error("the cassette \(url.path) is not a HAR 1.2 file: \(error)")
        }
        let problems = HARValidation.problems(in: log, sideFiles: sideFiles)
        if !problems.isEmpty {
            let count = problems.count
            throw ReplayFailure.error(
                "the cassette \(url.path) has \(count) invalid field\(count == 1 ? "" : "s"):\n"
                    + problems.map { "  - \($0)" }.joined(separator: "\n"))
        }
        self.url = url
        self.sideFiles = sideFiles
        var requests: [RecordedRequest] = []
        for entry in log.entries { requests.append(try entry.recordedRequest(sideFiles: sideFiles)) }
        self.requests = requests
        cursor = ReplayCursor(count: requests.count)
    }

    /// Whether a cassette exists at `url`.
    static func exists(at url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// What replay answers `sent` (already redacted) with.
    enum Selection {
        /// The entry at this index.
        case entry(Int)
        /// No entry: why, naming the request, the closest recorded one and what differs.
        case mismatch(String)
    }

    /// The entry answering `sent`, marked as used: the first unused match in recorded order.
    mutating func select(_ sent: RecordedRequest, matching: ReplayMatching) -> Selection {
        var candidates: [Int] = []
        var closest: (index: Int, differences: [String], distance: ReplayDistance)?
        for (index, recorded) in requests.enumerated() {
            let differences = matching.differences(recorded: recorded, sent: sent)
            if differences.isEmpty {
                candidates.append(index)
                continue
            }
            let distance = ReplayDistance(recorded: recorded, sent: sent, differences: differences.count)
            if closest.map({ distance < $0.distance }) ?? true { closest = (index, differences, distance) }
        }
        let entries = log.entries
        if let index = cursor.take(candidates, repeats: { entries[$0].repeats == true }) {
            return .entry(index)
        }
        let name = url.lastPathComponent
        let label = "\(sent.method) \(sent.url.absoluteString)"
        if !candidates.isEmpty {
            return .mismatch(
                "\(label) was sent \(candidates.count + 1) times, but \(name) records \(candidates.count) "
                    + "answers to it (set \"_repeat\": true on entry \(candidates.last.map { $0 + 1 } ?? 0) "
                    + "to repeat the last one)")
        }
        guard let closest else { return .mismatch("\(name) records no request, and \(label) was sent") }
        let recorded = requests[closest.index]
        let lines = closest.differences.map { "  - \($0)" }.joined(separator: "\n")
        return .mismatch(
            "\(name) records no request matching \(label); the closest is entry \(closest.index + 1), "
                + "\(recorded.method) \(recorded.url.absoluteString):\n\(lines)")
    }

    /// The entry at `index`.
    func entry(at index: Int) -> HAREntry {
        log.entries[index]
    }

    /// Redacts an exchange, adds it (as already answered) and writes the cassette: nothing reaches the disk, or the
    /// cassette in memory, before redaction. Returns the entry's index.
    @discardableResult
    mutating func record(
        _ sent: RecordedRequest, _ response: RecordedResponse?, chunks: [HARChunk]?, failure: HARFailure?,
        timing: HAREntry.Timing, redaction: ReplayRedaction
    ) throws(RequestError) -> Int {
        let redacted = redaction.redacted(sent, response)
        var failure = failure
        if let detail = failure?.detail { failure?.detail = redaction.redacted(detail) }
        let entry = try HAREntry(
            request: redacted.request, response: redacted.response,
            chunks: chunks.map { Self.fitted($0, to: redacted.response?.body.count ?? 0) }, failure: failure,
            timing: timing, sideFiles: sideFiles)
        log.entries.append(entry)
        requests.append(redacted.request)
        cursor.appendUsed()
        try write()
        return log.entries.count - 1
    }

    /// Sets the WebSocket messages of the handshake entry at `index` and writes the cassette.
    mutating func recordWebSocketMessages(_ messages: [HARWebSocketMessage], at index: Int) throws(RequestError) {
        guard log.entries.indices.contains(index) else { return }
        log.entries[index].webSocketMessages = messages
        try write()
    }

    /// `chunks` cut to a body of `length` bytes, which redaction may have made longer or shorter than the body
    /// received: the difference goes to the last chunks, each arriving when it did.
    static func fitted(_ chunks: [HARChunk], to length: Int) -> [HARChunk] {
        guard !chunks.isEmpty else { return length == 0 ? [] : [HARChunk(size: length, time: 0)] }
        var fitted = chunks
        var excess = chunks.reduce(0) { $0 + $1.size } - length
        if excess < 0 { fitted[fitted.count - 1].size -= excess }
        var index = fitted.count - 1
        while excess > 0, index >= 0 {
            let taken = min(excess, fitted[index].size)
            fitted[index].size -= taken
            excess -= taken
            index -= 1
        }
        return fitted
    }

    /// Writes the HAR file, creating its folder if needed.
    func write() throws(RequestError) {
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try HARDocument(log: log).encoded().write(to: url, options: .atomic)
        } catch {
            throw ReplayFailure.error("cannot write the cassette \(url.path): \(error)")
        }
    }
}
