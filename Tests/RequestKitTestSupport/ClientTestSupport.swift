import Foundation
import RequestKitFeatures
import RequestKitModel

/// A thread-safe counter for routes and closures in client tests.
package final class Counter: @unchecked Sendable {
    // Safe: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count = 0

    package init() {}

    /// Adds one and returns the new count.
    @discardableResult
    package func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    package var value: Int { lock.withLock { count } }
}

/// A monitor that records one line per event, without timings; it records `events` only (all unless given).
package struct EventRecorder: EventMonitor {
    package let log: Log
    package let monitoredEvents: MonitoredEvents

    package init(log: Log, events: MonitoredEvents = .all) {
        self.log = log
        self.monitoredEvents = events
    }

    package func requestStarted(_ request: URLRequest, attempt: Int) {
        log.add("start \(attempt) \(request.httpMethod ?? "") \(request.url?.path ?? "")")
    }
    package func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        log.add("response \(attempt) \(response.statusCode)")
    }
    package func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        log.add("failed \(attempt) \(error.kind)")
    }
    package func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double) {
        log.add("retry \(nextAttempt)")
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
