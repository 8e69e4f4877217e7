import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension [any EventMonitor] {
    /// The events any of the monitors records: none when none of them records anything.
    package var monitoredEvents: MonitoredEvents {
        var events: MonitoredEvents = []
        for monitor in self { events.formUnion(monitor.monitoredEvents) }
        return events
    }

    /// Tells each monitor the request (or a WebSocket's handshake) ended with `outcome`, and where its time went.
    package func reportFinished(_ outcome: Result<Response, RequestError>, of request: URLRequest) {
        let metrics: RequestMetrics
        switch outcome {
        case .success(let response): metrics = response.metrics
        case .failure(let error): metrics = error.metrics ?? RequestMetrics()
        }
        for monitor in self where monitor.monitoredEvents.contains(.requestFinished) {
            monitor.requestFinished(request, metrics: metrics)
        }
    }
}
