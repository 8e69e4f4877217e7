#if Metrics
import CoreMetrics
import Foundation
import RequestKit
import RequestKitConventions
import RequestKitFeatures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` that records OpenTelemetry's HTTP client instruments through swift-metrics.
///
/// - `http.client.request.duration`: a `Timer` (preferred unit seconds) per attempt, from sending it to its
///   response's head or its failure, or for a streamed response to its body's end: a retry and each redirect hop
///   are requests of their own, as OpenTelemetry counts them. A streamed body that fails, or that its reader leaves
///   before its end, gives the attempt that failure's `error.type`.
/// - `http.client.active_requests`: a `Meter` incremented when an attempt is sent and decremented when it ends
///   (a streamed response's with its body).
///
/// Dimensions are low in cardinality, never the path or the query: `http.request.method` (`_OTHER` for a method
/// outside the known set), `server.address`, `server.port` and `url.scheme`; the duration adds
/// `http.response.status_code`, `network.protocol.version` (`1.1`, `2`) and `error.type` (the status from 400, or
/// the ``RequestError/Kind`` of a failure) when known.
///
/// `http.client.open_connections` counts a transport's connections, not a request's, so the transport records it:
/// ``NativeTransport/Configuration/recordOpenConnections(factory:)``.
///
/// ```swift
/// import Metrics
/// import RequestKitMetrics
///
/// let client = Client(baseURL: url) { $0.monitors = [MetricsMonitor()] }  // MetricsSystem's factory
/// ```
public struct MetricsMonitor: EventMonitor, StreamedResponseMonitor {
    /// The instruments made so far, made through the backend the monitor was given.
    private let instruments: MetricsInstruments
    /// Whether the backend is `NOOPMetricsHandler`, which records nothing.
    private let isNoOp: Bool

    /// Creates a monitor recording through `factory`.
    ///
    /// ```swift
    /// let monitor = MetricsMonitor(factory: MetricsSystem.factory)
    /// ```
    /// - Parameter factory: The backend; the one `MetricsSystem.bootstrap` installed unless given.
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        self.instruments = MetricsInstruments(factory: factory)
        self.isNoOp = factory is NOOPMetricsHandler
    }

    /// `http.client.request.duration`, the label of the duration `Timer`.
    ///
    /// ```swift
    /// let timer = try testMetrics.expectTimer(MetricsMonitor.requestDuration, dimensions)
    /// ```
    public static let requestDuration = "http.client.request.duration"
    /// `http.client.active_requests`, the label of the active requests `Meter`.
    ///
    /// ```swift
    /// let meter = try testMetrics.expectMeter(MetricsMonitor.activeRequests, dimensions)
    /// ```
    public static let activeRequests = "http.client.active_requests"
    /// `http.client.open_connections`, the label of the open connections `Meter` that a ``NativeTransport`` records
    /// when its configuration says so (``NativeTransport/Configuration/recordOpenConnections(factory:)``).
    ///
    /// ```swift
    /// let meter = try testMetrics.expectMeter(MetricsMonitor.openConnections, dimensions)
    /// ```
    public static let openConnections = "http.client.open_connections"

    /// An attempt's start, its outcome and a streamed body's end; nothing with `NOOPMetricsHandler`
    /// (`MetricsSystem`'s factory until one is bootstrapped), which records nothing.
    ///
    /// ```swift
    /// MetricsMonitor(factory: backend).monitoredEvents  // [.requestStarted, .responseReceived, .requestFailed]
    /// MetricsMonitor(factory: NOOPMetricsHandler.instance).monitoredEvents  // []
    /// ```
    public var monitoredEvents: MonitoredEvents {
        isNoOp ? [] : [.requestStarted, .responseReceived, .requestFailed]
    }

    public func requestStarted(_ request: URLRequest, attempt: Int) {
        instruments.activeRequests(for: Self.dimensions(of: request)).increment()
    }

    public func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        answered(response, for: request, duration: duration, failure: nil)
    }

    package func responseStreamed(
        _ response: Response, for request: URLRequest, attempt: Int
    ) -> (@Sendable (RequestError?, Double) -> Void)? {
        { failure, duration in answered(response, for: request, duration: duration, failure: failure) }
    }

    /// An attempt that got `response` ended after `duration` seconds: at its head, or at its streamed body's end
    /// (with `failure` when the body did not arrive whole).
    private func answered(_ response: Response, for request: URLRequest, duration: Double, failure: RequestError?) {
        let dimensions = Self.dimensions(of: request)
        instruments.activeRequests(for: dimensions).decrement()
        let errorType =
            if let failure { HTTPClientConventions.errorType(of: failure) } else {
                HTTPClientConventions.errorType(ofStatus: response.statusCode)
            }
        let version = HTTPClientConventions.protocolVersion(
            ofNetworkProtocol: response.metrics.attempts.last?.networkProtocol)
        record(
            duration,
            DurationDimensions(
                request: dimensions, status: response.statusCode, protocolVersion: version, errorType: errorType))
    }

    public func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        let dimensions = Self.dimensions(of: request)
        instruments.activeRequests(for: dimensions).decrement()
        let version = HTTPClientConventions.protocolVersion(
            ofNetworkProtocol: error.metrics?.attempts.last?.networkProtocol)
        record(
            duration,
            DurationDimensions(
                request: dimensions, protocolVersion: version, errorType: HTTPClientConventions.errorType(of: error)))
    }

    private func record(_ seconds: Double, _ dimensions: DurationDimensions) {
        // At most about 285 years, so the conversion never traps.
        instruments.requestDuration(for: dimensions).recordNanoseconds(
            Int64((min(max(0, seconds), 9e9) * 1e9).rounded()))
    }

    /// The dimensions every instrument has.
    static func dimensions(of request: URLRequest) -> RequestDimensions {
        RequestDimensions(
            method: HTTPClientConventions.method(of: request),
            address: HTTPClientConventions.serverAddress(of: request),
            port: HTTPClientConventions.serverPort(of: request), scheme: request.url?.scheme?.lowercased())
    }
}
#endif
