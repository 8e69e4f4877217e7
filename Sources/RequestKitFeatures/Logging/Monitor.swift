import RequestKitModel

/// Adds an event monitor to this request, after the client's.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/anything")
///     Monitor(ConsoleLogger())
/// }
/// ```
public struct Monitor: RequestComponent {
    /// The monitor.
    public let monitor: any EventMonitor

    /// Adds `monitor`.
    ///
    /// ```swift
    /// Monitor(ConsoleLogger(output: { lines.append($0) }))
    /// ```
    public init(_ monitor: any EventMonitor) { self.monitor = monitor }

    public func apply(to parts: inout RequestParts) {
        parts[option: EventMonitorsKey.self].append(monitor)
    }
}

package enum EventMonitorsKey: RequestOptionKey {
    package static let defaultValue: [any EventMonitor] = []
}
