import Foundation

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

    /// Whether spooled bytes still wait for the consumer.
    var hasSpooledBytes: Bool { spool.map { !$0.isEmpty } ?? false }

    /// Ends the transfer for whoever waits on it: the caller of `send` or `stream` before the head, or the
    /// stream's consumer after it. A nil `error` ends it successfully, with `response` when there is one.
    func finish(with error: RequestError?) {
        spool?.close()
        spool = nil
        switch destination {
        case .whole(let continuation):
            if let error {
                continuation.resume(throwing: error)
            } else if let response {
                continuation.resume(returning: FoundationMapping.response(response, body: collected))
            } else {
                continuation.resume(throwing: Self.noResponse)
            }
        case .stream(let head, let body, let stream):
            guard let head else {
                body.finish(throwing: error)
                return
            }
            if let error {
                head.resume(throwing: error)
            } else if let response {
                body.finish()
                head.resume(returning: StreamingResponse(head: FoundationMapping.response(response), body: stream))
            } else {
                head.resume(throwing: Self.noResponse)
            }
        }
    }

    private static let noResponse = RequestError.transport(URLError(.badServerResponse), detail: "no HTTP response")
}
