import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Observes requests as they are sent: each attempt's start, its response or failure, and each retry.
///
/// Every method has an empty default, so a monitor implements only what it needs. Methods are called on the
/// sending task; keep them quick. A monitor that records only some events says which (``monitoredEvents``): the
/// pipeline then calls it for those only, and a request no monitor wants an event of costs nothing more. Attach monitors to a ``Client`` or to one request with `Monitor(_:)`.
///
/// ```swift
/// struct StatusCounter: EventMonitor {
///     let counts: Counts
///     func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
///         counts.add(response.statusCode)
///     }
/// }
/// ```
public protocol EventMonitor: Sendable {
    /// The events this monitor records; the pipeline calls only their methods. Read as each request starts (and as
    /// each event comes), so a monitor may answer from its current configuration: a log level, say. All by default.
    var monitoredEvents: MonitoredEvents { get }
    /// An attempt is about to be sent (after interceptors adapted it).
    func requestStarted(_ request: URLRequest, attempt: Int)
    /// An attempt got a response, whatever its status.
    func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int)
    /// An attempt failed without a response.
    func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int)
    /// The request will be sent again after `delay` seconds, as attempt `nextAttempt`.
    func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double)
    /// A value the server sent to be echoed in later requests (an `ETag` or `Last-Modified` for polling, an
    /// event `id` for `Last-Event-ID`) was dropped because it is not valid there; later requests go without it.
    func serverValueDropped(_ field: String, value: String, from url: URL?)
    /// A ``ResponseCache`` answered `request` (one hop: a redirect is a response of its own): from storage
    /// (``CacheStatus/hit``, ``CacheStatus/stale``), after a `304` (``CacheStatus/revalidated``), from the network
    /// (``CacheStatus/network``, whether stored or not), or with a `504` (``CacheStatus/unsatisfied``).
    func cacheConsulted(_ request: URLRequest, status: CacheStatus, response: Response)
    /// The request ended, with a response or a failure: `metrics` holds every attempt, in order
    /// (``RequestMetrics``). A streamed body may still be arriving; ``StreamingResponse/metrics`` completes it.
    func requestFinished(_ request: URLRequest, metrics: RequestMetrics)
}

/// Empty defaults, so a monitor implements only the events it needs.
///
/// ```swift
/// struct FailureCounter: EventMonitor {
///     func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
///         print("failed:", error.kind)
///     }
/// }
/// ```
extension EventMonitor {
    /// Every event (``MonitoredEvents/all``).
    public var monitoredEvents: MonitoredEvents { .all }
    /// Does nothing.
    public func requestStarted(_ request: URLRequest, attempt: Int) {}
    /// Does nothing.
    public func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {}
    /// Does nothing.
    public func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {}
    /// Does nothing.
    public func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double) {}
    /// Does nothing.
    public func serverValueDropped(_ field: String, value: String, from url: URL?) {}
    /// Does nothing.
    public func cacheConsulted(_ request: URLRequest, status: CacheStatus, response: Response) {}
    /// Does nothing.
    public func requestFinished(_ request: URLRequest, metrics: RequestMetrics) {}
}
