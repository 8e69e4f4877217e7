#if Metrics
import CoreMetrics
import RequestKitNativeTransport

/// Counts a ``NativeTransport``'s open connections as OpenTelemetry's `http.client.open_connections`: a `Meter` per
/// set of dimensions, one taken away from the set a connection leaves and one added to the set it enters, so that
/// each meter is the number of connections that stand so (``NativeTransport/Configuration/recordOpenConnections(factory:)``).
struct OpenConnectionsRecorder: ConnectionObserver {
    let factory: any MetricsFactory

    func connectionChanged(from old: ObservedConnection?, to new: ObservedConnection?) {
        if let old {
            Meter(label: MetricsMonitor.openConnections, dimensions: Self.dimensions(of: old), factory: factory)
                .decrement()
        }
        if let new {
            Meter(label: MetricsMonitor.openConnections, dimensions: Self.dimensions(of: new), factory: factory)
                .increment()
        }
    }

    /// `server.address`, `server.port`, `url.scheme`, `network.protocol.version` and `http.connection.state`.
    static func dimensions(of connection: ObservedConnection) -> [(String, String)] {
        [
            ("server.address", connection.host), ("server.port", String(connection.port)),
            ("url.scheme", connection.isSecure ? "https" : "http"),
            ("network.protocol.version", connection.protocolVersion),
            ("http.connection.state", connection.state == .active ? "active" : "idle"),
        ]
    }
}
#endif
