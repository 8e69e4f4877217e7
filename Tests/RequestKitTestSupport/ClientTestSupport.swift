import Foundation
import RequestKit

/// A thread-safe counter for routes and closures in client tests.
final class Counter: @unchecked Sendable {
    // Safe: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count = 0

    /// Adds one and returns the new count.
    @discardableResult
    func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
    var value: Int { lock.withLock { count } }
}

/// A monitor that records one line per event, without timings.
struct EventRecorder: EventMonitor {
    let log: Log

    func requestStarted(_ request: URLRequest, attempt: Int) {
        log.add("start \(attempt) \(request.httpMethod ?? "") \(request.url?.path ?? "")")
    }
    func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        log.add("response \(attempt) \(response.statusCode)")
    }
    func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        log.add("failed \(attempt) \(error.kind)")
    }
    func requestRetrying(_ request: URLRequest, nextAttempt: Int, delay: Double) {
        log.add("retry \(nextAttempt)")
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
