import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An event monitor that writes every exchange it sees to a HAR 1.2 file, for inspection in a browser's developer
/// tools (Chrome and Firefox import HAR in their network panel), Charles or Proxyman. Redacted as cassettes are
/// (``ReplayRedaction``); the file is rewritten after each exchange, so it is complete whenever the process stops.
///
/// Each attempt is an entry: its response, or its failure with status 0. A response body arrives whole for the
/// verbs that collect it; streamed verbs (`stream()`, `download(to:)`, `events()`) hand the monitor the head only.
///
/// ```swift
/// let exporter = HARExportMonitor(file: URL(fileURLWithPath: "/tmp/session.har"))
/// let client = Client(baseURL: apiURL) { configuration in
///     configuration.monitors.append(exporter)
/// }
/// ```
public final class HARExportMonitor: EventMonitor {
    /// The HAR file written.
    public let fileURL: URL
    private let redaction: ReplayRedaction
    private let state: Locked<State>

    private struct State {
        var log: Cassette
        var writeError: RequestError?
    }

    /// A monitor writing to `file`, replacing it at the first exchange.
    ///
    /// ```swift
    /// let exporter = HARExportMonitor(file: URL(fileURLWithPath: "/tmp/session.har"))
    /// ```
    /// - Parameters:
    ///   - file: The HAR file.
    ///   - redaction: What is removed before writing.
    ///   - largeBodyThreshold: Bodies longer than this many bytes go to side files (`name.bodies/`).
    public init(file: URL, redaction: ReplayRedaction = ReplayRedaction(), largeBodyThreshold: Int = 64 * 1024) {
        fileURL = file
        self.redaction = redaction
        let sideFiles = SideFiles(cassette: file, threshold: max(0, largeBodyThreshold))
        state = Locked(State(log: Cassette(url: file, sideFiles: sideFiles)))
    }

    /// The last failure to write the file, if any: the exchanges stay in memory and the next write tries again.
    public var writeError: RequestError? {
        state.withLock { $0.writeError }
    }

    /// Writes the attempt and its response.
    public func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        let recorded = RecordedResponse(status: response.statusCode, headers: response.headers, body: response.body)
        export(request, recorded, failure: nil, duration: duration)
    }

    /// Writes the attempt and its failure.
    public func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        export(request, nil, failure: HARFailure(error, duringBody: false), duration: duration)
    }

    private func export(_ request: URLRequest, _ response: RecordedResponse?, failure: HARFailure?, duration: Double) {
        guard let sent = RecordedRequest(request) else { return }
        let milliseconds = (duration * 1000).rounded()
        let timing = HAREntry.Timing(
            started: Date(timeIntervalSinceNow: -duration), head: milliseconds, total: milliseconds)
        let redaction = redaction
        state.withLock { state in
            do throws(RequestError) {
                try state.log.record(
                    sent, response, chunks: nil, failure: failure, timing: timing, redaction: redaction)
                state.writeError = nil
            } catch {
                state.writeError = error
            }
        }
    }
}
