import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension [any EventMonitor] {
    /// Tells each monitor the request (or a WebSocket's handshake) ended with `outcome`, and where its time went.
    package func reportFinished(_ outcome: Result<Response, RequestError>, of request: URLRequest) {
        let metrics: RequestMetrics
        switch outcome {
        case .success(let response): metrics = response.metrics
        case .failure(let error): metrics = error.metrics ?? RequestMetrics()
        }
        for monitor in self { monitor.requestFinished(request, metrics: metrics) }
    }
}
