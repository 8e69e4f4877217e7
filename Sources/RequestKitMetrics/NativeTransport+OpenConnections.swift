#if Metrics
import CoreMetrics
import RequestKit
import RequestKitNativeTransport

extension NativeTransport.Configuration {
    /// Records the transport's open connections through swift-metrics as OpenTelemetry's
    /// `http.client.open_connections` (``MetricsMonitor/openConnections``): a `Meter` that goes up when a connection
    /// opens and down when it closes, per set of dimensions `server.address`, `server.port`, `url.scheme`,
    /// `network.protocol.version` (`1.1`, `2`) and `http.connection.state` (`active` while it carries a request,
    /// `idle` while it waits in the pool). A connection counts from its handshakes' end (TLS, a proxy's tunnel) to its
    /// close; one still opening does not.
    ///
    /// Connections belong to the transport, not to a request, so this is set on the transport that the clients
    /// share, beside a ``MetricsMonitor`` on each client for the requests' instruments.
    ///
    /// ```swift
    /// import Metrics
    /// import RequestKitMetrics
    ///
    /// let transport = NativeTransport { $0.recordOpenConnections() }  // MetricsSystem's factory
    /// let client = Client(baseURL: url) {
    ///     $0.transport = transport
    ///     $0.monitors = [MetricsMonitor()]
    /// }
    /// ```
    /// - Parameter factory: The backend; the one `MetricsSystem.bootstrap` installed unless given.
    public mutating func recordOpenConnections(factory: any MetricsFactory = MetricsSystem.factory) {
        connectionObservers.append(OpenConnectionsRecorder(factory: factory))
    }
}
#endif
