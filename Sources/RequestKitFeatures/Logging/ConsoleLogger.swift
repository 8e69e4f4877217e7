import Foundation
import RequestKitDSL
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs every attempt: the request as a curl command with secrets redacted, then its status, size and duration.
///
/// Secrets print as `<redacted>` (see ``SensitiveData``): sensitive headers such as `Authorization`, `Cookie`
/// and `X-Api-Key`, a password in the URL, and sensitive query parameters such as `api_key`. Request bodies are
/// not logged (only their size) unless `logsBodies` is true, and then with sensitive JSON, form and multipart
/// members redacted. A failure's line also has the request's secret values (8 characters or more) redacted wherever
/// they reappear in it. Lines go to standard output unless another destination is given.
///
/// ```swift
/// let client = Client(baseURL: url) { $0.monitors = [ConsoleLogger()] }
/// // → curl 'http://127.0.0.1:8080/users/1' -H 'Authorization: <redacted>'
/// // ← 200 OK, 42 bytes in 0.012 s
/// ```
///
/// With `logsTimeline`, each attempt's phases follow on a line of their own (``RequestMetrics/Attempt/timeline``):
///
/// ```swift
/// let logger = ConsoleLogger(logsTimeline: true)
/// // ← 200 OK, 42 bytes in 0.012 s
/// // ⏱ pool 0.0 ms · dns 0.2 ms · connect 0.1 ms · tls 1.9 ms · send 0.0 ms · wait 0.4 ms · body 0.1 ms
/// ```
public struct ConsoleLogger: EventMonitor {
    private let output: @Sendable (String) -> Void
    private let sensitiveData: SensitiveData
    private let logsBodies: Bool
    private let logsTimeline: Bool

    /// Creates a logger writing each line to `output` (standard output by default).
    ///
    /// ```swift
    /// let logger = ConsoleLogger { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    /// let verbose = ConsoleLogger(logsBodies: true, sensitiveData: SensitiveData(queryNames: ["sig"]))
    /// ```
    /// - Parameters:
    ///   - logsBodies: Whether to print request bodies (with sensitive members redacted); false by default.
    ///   - logsTimeline: Whether to print each attempt's phases after its response or failure; false by default.
    ///   - sensitiveData: What to redact; the defaults unless given.
    ///   - output: Where each line goes.
    public init(
        logsBodies: Bool = false, logsTimeline: Bool = false, sensitiveData: SensitiveData = SensitiveData(),
        output: @escaping @Sendable (String) -> Void = { print($0) }
    ) {
        self.output = output
        self.sensitiveData = sensitiveData
        self.logsBodies = logsBodies
        self.logsTimeline = logsTimeline
    }

    public func requestStarted(_ request: URLRequest, attempt: Int) {
        let retry = attempt > 1 ? " (attempt \(attempt))" : ""
        output("→ " + CURLCommand(request, redacting: sensitiveData, includesBody: logsBodies).text + retry)
    }

    public func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        output("← \(response.status), \(response.body.count) bytes in \(Self.format(duration)) s")
        if logsTimeline, let attempt = response.metrics.attempts.last { output("⏱ " + attempt.timeline) }
    }

    public func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        let line = sensitiveData.redacting("✗ \(error.kind) after \(Self.format(duration)) s: \(error)")
        output(sensitiveData.secrets(of: request).replacingEchoes(in: line))
        if logsTimeline, let attempt = error.metrics?.attempts.last { output("⏱ " + attempt.timeline) }
    }

    public func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double) {
        output("↻ retrying in \(Self.format(delay)) s (attempt \(nextAttempt))")
    }

    public func serverValueDropped(_ field: String, value: String, from url: URL?) {
        let source = url.map { " from " + sensitiveData.redacting($0.absoluteString) } ?? ""
        output("⚠ dropped an invalid \(field)\(source): \(value.debugDescription)")
    }

    /// Seconds with three decimals.
    static func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }
}
