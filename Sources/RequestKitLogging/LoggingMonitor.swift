#if Logging
import Foundation
import Logging
import RequestKit
import RequestKitConventions

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` that logs each request through a swift-log `Logger`, with structured metadata named as
/// OpenTelemetry names HTTP client attributes where it has a name for them.
///
/// Each attempt gives one record when it is sent (`debug`), one when it gets a response (`level`, `info` by
/// default, whatever the status) or fails without one (`failureLevel`, `warning` by default), and one before a
/// retry (`debug`). Secrets are redacted as everywhere in RequestKit (``SensitiveData``): the URL's password and
/// sensitive query values print as `<redacted>`, headers and bodies are never logged, and a failure's message has
/// the request's secret values redacted wherever they reappear.
///
/// ```swift
/// import Logging
/// import RequestKitLogging
///
/// let client = Client(baseURL: url) { $0.monitors = [LoggingMonitor(logger: Logger(label: "api"))] }
/// // info: response  http.request.method=GET url.full=https://api.example.com/users?api_key=<redacted>
/// //       http.response.status_code=200 requestkit.attempt=1 http.response.body.size=42 …
/// ```
///
/// The metadata of a response's record:
/// - `http.request.method`, `url.full` (redacted), `server.address`, `server.port`
/// - `http.response.status_code`, `network.protocol.version` (`1.1`, `2`), `error.type` (the status, from 400)
/// - `requestkit.attempt` (1 for the first, 2 for the first retry, …), `requestkit.duration` (seconds)
/// - `http.response.body.size` (the body as delivered), `requestkit.bytes_sent` and `requestkit.bytes_received`
///   (on the wire, when the transport counted them)
/// - `requestkit.phases`: each phase the attempt went through (`pool`, `dns`, `connect`, `tls`, `send`, `wait`,
///   `body`), in milliseconds
///
/// A failure's record has `error.type` (the ``RequestError/Kind``) and `requestkit.error` (its description,
/// redacted) in place of the response's fields.
public struct LoggingMonitor: EventMonitor {
    /// The logger each record goes to.
    ///
    /// ```swift
    /// monitor.logger.info("sending the orders")
    /// ```
    public let logger: Logger
    /// The level of a response's record.
    ///
    /// ```swift
    /// let quiet = LoggingMonitor(logger: logger, level: .debug)  // quiet.level == .debug
    /// ```
    public let level: Logger.Level
    /// The level of a failure's record.
    ///
    /// ```swift
    /// let loud = LoggingMonitor(logger: logger, failureLevel: .error)  // loud.failureLevel == .error
    /// ```
    public let failureLevel: Logger.Level
    private let sensitiveData: SensitiveData

    /// Creates a monitor logging to `logger`.
    ///
    /// ```swift
    /// let monitor = LoggingMonitor(
    ///     logger: Logger(label: "api"), level: .debug, sensitiveData: SensitiveData(queryNames: ["sig"]))
    /// ```
    /// - Parameters:
    ///   - logger: Where records go; its own metadata (a request id, say) is kept in every record.
    ///   - level: The level of each response's record; `info` by default.
    ///   - failureLevel: The level of each failure's record; `warning` by default.
    ///   - sensitiveData: What to redact; the defaults unless given.
    public init(
        logger: Logger, level: Logger.Level = .info, failureLevel: Logger.Level = .warning,
        sensitiveData: SensitiveData = SensitiveData()
    ) {
        self.logger = logger
        self.level = level
        self.failureLevel = failureLevel
        self.sensitiveData = sensitiveData
    }

    /// The events whose records the logger's level lets through, read as each request starts: none when the logger
    /// drops them all (its level above `level` and `failureLevel`), and the request then costs nothing more.
    ///
    /// ```swift
    /// let quiet = LoggingMonitor(logger: Logger(label: "api") { _ in SwiftLogNoOpLogHandler() })
    /// // quiet.monitoredEvents.isEmpty
    /// ```
    public var monitoredEvents: MonitoredEvents {
        let threshold = logger.logLevel
        var events: MonitoredEvents = []
        if threshold <= .debug { events.formUnion([.requestStarted, .requestRetrying]) }
        if threshold <= level { events.insert(.responseReceived) }
        if threshold <= failureLevel { events.insert(.requestFailed) }
        return events
    }

    public func requestStarted(_ request: URLRequest, attempt: Int) {
        guard logger.logLevel <= .debug else { return }
        var metadata = requestMetadata(request)
        metadata["requestkit.attempt"] = "\(attempt)"
        logger.debug("request", metadata: metadata)
    }

    public func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        guard logger.logLevel <= level else { return }
        var metadata = requestMetadata(request)
        metadata["requestkit.attempt"] = "\(attempt)"
        metadata["requestkit.duration"] = "\(Self.seconds(duration))"
        metadata["http.response.status_code"] = "\(response.statusCode)"
        metadata["http.response.body.size"] = "\(response.body.count)"
        if let type = HTTPClientConventions.errorType(ofStatus: response.statusCode) {
            metadata["error.type"] = "\(type)"
        }
        if let last = response.metrics.attempts.last { add(last, to: &metadata) }
        logger.log(level: level, "response", metadata: metadata)
    }

    public func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        guard logger.logLevel <= failureLevel else { return }
        var metadata = requestMetadata(request)
        metadata["requestkit.attempt"] = "\(attempt)"
        metadata["requestkit.duration"] = "\(Self.seconds(duration))"
        metadata["error.type"] = "\(HTTPClientConventions.errorType(of: error))"
        let message = sensitiveData.redacting(String(describing: error))
        metadata["requestkit.error"] = "\(sensitiveData.secrets(of: request).replacingEchoes(in: message))"
        if let last = error.metrics?.attempts.last { add(last, to: &metadata) }
        logger.log(level: failureLevel, "request failed", metadata: metadata)
    }

    public func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double) {
        guard logger.logLevel <= .debug else { return }
        var metadata = requestMetadata(request)
        metadata["requestkit.attempt"] = "\(nextAttempt)"
        metadata["requestkit.retry_delay"] = "\(Self.seconds(delay))"
        logger.debug("retrying", metadata: metadata)
    }

    /// The method, the redacted URL and the server.
    private func requestMetadata(_ request: URLRequest) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "http.request.method": "\(HTTPClientConventions.method(of: request))",
            "url.full": "\(HTTPClientConventions.urlFull(of: request, redacting: sensitiveData))",
        ]
        if let original = HTTPClientConventions.originalMethod(of: request) {
            metadata["http.request.method_original"] = "\(original)"
        }
        if let address = HTTPClientConventions.serverAddress(of: request) {
            metadata["server.address"] = "\(address)"
        }
        if let port = HTTPClientConventions.serverPort(of: request) { metadata["server.port"] = "\(port)" }
        return metadata
    }

    /// What the transport recorded of the attempt: protocol, bytes and phases.
    private func add(_ attempt: RequestMetrics.Attempt, to metadata: inout Logger.Metadata) {
        if let version = HTTPClientConventions.protocolVersion(ofNetworkProtocol: attempt.networkProtocol) {
            metadata["network.protocol.version"] = "\(version)"
        }
        if let sent = attempt.bytesSent { metadata["requestkit.bytes_sent"] = "\(sent)" }
        if let received = attempt.bytesReceived { metadata["requestkit.bytes_received"] = "\(received)" }
        let phases: [(String, Duration?)] = [
            ("pool", attempt.poolWait?.duration), ("dns", attempt.domainLookup?.duration),
            ("connect", attempt.connect?.duration), ("tls", attempt.tlsHandshake?.duration),
            ("send", attempt.requestSent?.duration), ("wait", attempt.waitingForResponse),
            ("body", attempt.receivingResponse),
        ]
        var recorded: Logger.Metadata = [:]
        for (name, duration) in phases {
            if let duration { recorded[name] = "\(Self.milliseconds(duration))" }
        }
        if !recorded.isEmpty { metadata["requestkit.phases"] = .dictionary(recorded) }
    }

    /// Seconds with six decimals.
    static func seconds(_ value: Double) -> String {
        String(format: "%.6f", value)
    }

    /// Milliseconds with three decimals.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f", Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
    }
}
#endif
