/// The events an ``EventMonitor`` records: the pipeline calls a monitor for these only, and makes the `URLRequest`
/// it shows monitors only when one of them wants an event of the request.
///
/// A set of options: ``all`` (the default of ``EventMonitor/monitoredEvents``), ``outcomes``, or any union.
///
/// ```swift
/// struct FailureCounter: EventMonitor {
///     var monitoredEvents: MonitoredEvents { .requestFailed }
///     func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
///         print("failed:", error.kind)
///     }
/// }
/// ```
public struct MonitoredEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    /// Makes a set from its bits.
    ///
    /// ```swift
    /// let started = MonitoredEvents(rawValue: MonitoredEvents.requestStarted.rawValue)
    /// ```
    /// - Parameter rawValue: One bit per event, as the static members set them.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// ``EventMonitor/requestStarted(_:attempt:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { [.requestStarted, .requestFinished] }
    /// ```
    public static let requestStarted = Self(rawValue: 1 << 0)
    /// ``EventMonitor/responseReceived(_:for:duration:attempt:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .responseReceived }
    /// ```
    public static let responseReceived = Self(rawValue: 1 << 1)
    /// ``EventMonitor/requestFailed(_:for:duration:attempt:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .requestFailed }
    /// ```
    public static let requestFailed = Self(rawValue: 1 << 2)
    /// ``EventMonitor/requestRetrying(_:nextAttempt:delay:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .requestRetrying }
    /// ```
    public static let requestRetrying = Self(rawValue: 1 << 3)
    /// ``EventMonitor/serverValueDropped(_:value:from:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .serverValueDropped }
    /// ```
    public static let serverValueDropped = Self(rawValue: 1 << 4)
    /// ``EventMonitor/cacheConsulted(_:status:response:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .cacheConsulted }
    /// ```
    public static let cacheConsulted = Self(rawValue: 1 << 5)
    /// ``EventMonitor/requestFinished(_:metrics:)``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .requestFinished }
    /// ```
    public static let requestFinished = Self(rawValue: 1 << 6)

    /// An attempt's outcome: ``responseReceived`` and ``requestFailed``.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .outcomes }
    /// ```
    public static let outcomes: Self = [.responseReceived, .requestFailed]
    /// Every event.
    ///
    /// ```swift
    /// var monitoredEvents: MonitoredEvents { .all }
    /// ```
    public static let all: Self = [
        .requestStarted, .responseReceived, .requestFailed, .requestRetrying, .serverValueDropped, .cacheConsulted,
        .requestFinished,
    ]
}
