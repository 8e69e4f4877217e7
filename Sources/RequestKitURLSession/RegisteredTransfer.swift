import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The state of one running URLSession task of a ``TransferRegistry``: who waits for it, what has arrived, and
/// the idle timeout's clock.
///
/// Only the registry touches it, while holding its lock; once the registry has removed a transfer from its table,
/// the thread that removed it owns it and finishes it (resumes its continuation, closes its spool).
final class RegisteredTransfer {
    /// Where the response goes.
    enum Destination {
        /// `send`: the body collects in ``RegisteredTransfer/collected``; the caller gets the whole response when
        /// the task completes.
        case whole(CheckedContinuation<Response, any Error>)
        /// `stream`: the caller gets the head as soon as it arrives (`head` is nil once resumed), then the body
        /// through `body`, the producing side of `stream`.
        case stream(
            head: CheckedContinuation<StreamingResponse, any Error>?, body: ResponseBodyStream.Continuation,
            stream: ResponseBodyStream)
    }

    let task: URLSessionTask
    let idleTimeout: TimeInterval
    let bodyFailure: BodyReadFailure
    /// The request's limits.
    let limits: ResponseLimits
    var destination: Destination
    var lastActivity = DispatchTime.now()
    /// When the transfer was registered, for its ``RequestMetrics/Attempt``.
    let started = ContinuousClock.now
    /// When the response head arrived: the nearest to its first byte that FoundationNetworking tells.
    var headReceived: ContinuousClock.Instant?
    /// The response head, once received (or kept from an authentication challenge).
    var response: HTTPURLResponse? {
        didSet { bound = ReceivedBodyBound(limits: limits, isWhole: isWhole, head: response) }
    }
    /// How many body bytes may arrive: from ``limits``, and from the head once it is known.
    private(set) var bound: ReceivedBodyBound
    /// The body bytes received so far, whether collected, handed to the consumer or spooled.
    var receivedBytes = 0
    /// Whether FoundationNetworking asked for credentials; the challenge was cancelled to return the 401.
    var isChallenged = false
    /// The body so far, for ``Destination/whole(_:)``.
    var collected = Data()
    /// Whether the consumer's buffer is full, so the task is suspended (Apple platforms) or spooling (Linux).
    var isPaused = false
    /// The bytes that arrived while paused, on Linux; created on first use.
    var spool: BodySpool?
    /// The transfer's end, held back while spooled bytes wait for the consumer: the error, or nil for success.
    var pendingEnd: RequestError??

    init(
        task: URLSessionTask, idleTimeout: TimeInterval, bodyFailure: BodyReadFailure, limits: ResponseLimits,
        destination: Destination
    ) {
        self.task = task
        self.idleTimeout = idleTimeout
        self.bodyFailure = bodyFailure
        self.limits = limits
        self.destination = destination
        let isWhole = if case .whole = destination { true } else { false }
        self.bound = ReceivedBodyBound(limits: limits, isWhole: isWhole, head: nil)
    }

    /// Whether the body is collected in memory for `send`, rather than streamed.
    var isWhole: Bool {
        if case .whole = destination { return true }
        return false
    }

    /// Counts `count` more body bytes; returns the ``RequestError/Kind/responseTooLarge`` error, keeping the
    /// head, once they pass ``bound``.
    func count(_ count: Int) -> RequestError? {
        let (total, overflow) = receivedBytes.addingReportingOverflow(count)
        receivedBytes = overflow ? .max : total
        guard receivedBytes > bound.maxBytes else { return nil }
        return bound.error(response: response.map { FoundationMapping.response($0) })
    }

    /// The attempt as FoundationNetworking lets it be seen: its start and end, the head's arrival, the status and
    /// the body's bytes. It reports no phases and no wire byte counts (swift-corelibs-foundation#4988), so those
    /// stay nil; `end` is nil while the body streams.
    func attempt(end: ContinuousClock.Instant?) -> RequestMetrics.Attempt {
        var attempt = RequestMetrics.Attempt(url: task.currentRequest?.url ?? task.originalRequest?.url, start: started)
        attempt.end = end
        attempt.firstResponseByte = headReceived
        attempt.responseComplete = end != nil && response != nil ? end : nil
        attempt.bodyBytesReceived = response != nil ? receivedBytes : nil
        attempt.status = response.map { HTTPStatus(code: $0.statusCode) }
        return attempt
    }

    /// `response` with the transfer's attempt as its metrics.
    func metered(_ response: Response, end: ContinuousClock.Instant?) -> Response {
        var response = response
        response.metrics.attempts = [attempt(end: end)]
        return response
    }

    /// `error` with the transfer's attempt as its metrics, ended `end`.
    func metered(_ error: RequestError, end: ContinuousClock.Instant) -> RequestError {
        var error = error
        error.metrics = RequestMetrics(attempts: [attempt(end: end)])
        return error
    }

    /// Whether spooled bytes still wait for the consumer.
    var hasSpooledBytes: Bool { spool.map { !$0.isEmpty } ?? false }

    /// Ends the transfer for whoever waits on it: the caller of `send` or `stream` before the head, or the
    /// stream's consumer after it. A nil `error` ends it successfully, with `response` when there is one.
    func finish(with error: RequestError?) {
        spool?.close()
        spool = nil
        let end = ContinuousClock.now
        switch destination {
        case .whole(let continuation):
            if let error {
                continuation.resume(throwing: metered(error, end: end))
            } else if let response {
                continuation.resume(
                    returning: metered(FoundationMapping.response(response, body: collected), end: end))
            } else {
                continuation.resume(throwing: metered(Self.noResponse, end: end))
            }
        case .stream(let head, let body, let stream):
            guard let head else {
                body.finish(throwing: error, attempt: attempt(end: end))
                return
            }
            if let error {
                head.resume(throwing: metered(error, end: end))
            } else if let response {
                body.finish(attempt: attempt(end: end))
                head.resume(
                    returning: StreamingResponse(
                        head: metered(FoundationMapping.response(response), end: end), body: stream))
            } else {
                head.resume(throwing: metered(Self.noResponse, end: end))
            }
        }
    }

    private static let noResponse = RequestError.transport(URLError(.badServerResponse), detail: "no HTTP response")
}
