import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Logs every attempt: the request as a curl command with secrets redacted, then its status, size and duration.
///
/// `Authorization`, `Cookie` and `Proxy-Authorization` values print as `<redacted>`. Lines go to standard
/// output unless another destination is given.
///
/// ```swift
/// let client = Client(baseURL: url) { $0.monitors = [ConsoleLogger()] }
/// // → curl 'http://127.0.0.1:8080/users/1' -H 'Authorization: <redacted>'
/// // ← 200 OK, 42 bytes in 0.012 s
/// ```
public struct ConsoleLogger: EventMonitor {
    private let output: @Sendable (String) -> Void

    /// Creates a logger writing each line to `output` (standard output by default).
    ///
    /// ```swift
    /// let logger = ConsoleLogger { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    /// ```
    public init(output: @escaping @Sendable (String) -> Void = { print($0) }) {
        self.output = output
    }

    public func requestStarted(_ request: URLRequest, attempt: Int) {
        let retry = attempt > 1 ? " (attempt \(attempt))" : ""
        output("→ " + CURLCommand(request, redactingSecrets: true).text + retry)
    }

    public func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        output("← \(response.status), \(response.body.count) bytes in \(Self.format(duration)) s")
    }

    public func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        output("✗ \(error.kind) after \(Self.format(duration)) s: \(error)")
    }

    public func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double) {
        output("↻ retrying in \(Self.format(delay)) s (attempt \(nextAttempt))")
    }

    /// Seconds with three decimals.
    static func format(_ seconds: Double) -> String {
        String(format: "%.3f", seconds)
    }
}
