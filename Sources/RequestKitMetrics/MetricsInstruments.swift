#if Metrics
import CoreMetrics
import Foundation

/// The instruments a ``MetricsMonitor`` has made, by their dimensions, so that a request records through instruments
/// made once rather than asking the factory for new ones every time (a `Meter` or `Timer` costs an allocation, its
/// dimensions an array, and the factory's lookup).
///
/// The dimensions are low in cardinality (method, server, scheme, status, protocol, error type), so few sets come;
/// past ``capacity`` sets of one kind the cache starts again, and an instrument is made again as it was before.
///
/// ```swift
/// let instruments = MetricsInstruments(factory: NOOPMetricsHandler.instance)
/// instruments.activeRequests(for: dimensions).increment()
/// ```
final class MetricsInstruments: @unchecked Sendable {
    /// The most dimension sets of one kind kept.
    static let capacity = 256

    private let factory: any MetricsFactory
    /// Guards `meters` and `timers`; held for the lookup only, never while an instrument records. Safe to share
    /// between threads: the dictionaries are only read and written under it.
    private let lock = NSLock()
    private var meters: [RequestDimensions: Meter] = [:]
    private var timers: [DurationDimensions: CoreMetrics.Timer] = [:]

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    /// The `http.client.active_requests` meter of requests with `dimensions`.
    func activeRequests(for dimensions: RequestDimensions) -> Meter {
        if let meter = lock.withLock({ meters[dimensions] }) { return meter }
        let meter = Meter(label: MetricsMonitor.activeRequests, dimensions: dimensions.list, factory: factory)
        lock.withLock {
            if meters.count >= Self.capacity { meters.removeAll() }
            meters[dimensions] = meter
        }
        return meter
    }

    /// The `http.client.request.duration` timer of attempts with `dimensions`.
    func requestDuration(for dimensions: DurationDimensions) -> CoreMetrics.Timer {
        if let timer = lock.withLock({ timers[dimensions] }) { return timer }
        let timer = CoreMetrics.Timer(
            label: MetricsMonitor.requestDuration, dimensions: dimensions.list, preferredDisplayUnit: .seconds,
            factory: factory)
        lock.withLock {
            if timers.count >= Self.capacity { timers.removeAll() }
            timers[dimensions] = timer
        }
        return timer
    }
}

/// The dimensions every instrument of a request has: `http.request.method`, `server.address`, `server.port` and
/// `url.scheme`.
struct RequestDimensions: Hashable, Sendable {
    var method: String
    var address: String?
    var port: Int?
    var scheme: String?

    /// The dimensions in the order swift-metrics is given them.
    var list: [(String, String)] {
        var list = [("http.request.method", method)]
        if let address { list.append(("server.address", address)) }
        if let port { list.append(("server.port", String(port))) }
        if let scheme { list.append(("url.scheme", scheme)) }
        return list
    }
}

/// The dimensions of an attempt's duration: the request's, then `http.response.status_code`,
/// `network.protocol.version` and `error.type` when known.
struct DurationDimensions: Hashable, Sendable {
    var request: RequestDimensions
    var status: Int?
    var protocolVersion: String?
    var errorType: String?

    /// The dimensions in the order swift-metrics is given them.
    var list: [(String, String)] {
        var list = request.list
        if let status { list.append(("http.response.status_code", String(status))) }
        if let protocolVersion { list.append(("network.protocol.version", protocolVersion)) }
        if let errorType { list.append(("error.type", errorType)) }
        return list
    }
}
#endif
