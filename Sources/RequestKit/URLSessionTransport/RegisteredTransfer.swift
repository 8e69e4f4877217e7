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
    var destination: Destination
    var lastActivity = DispatchTime.now()
    /// The response head, once received (or kept from an authentication challenge).
    var response: HTTPURLResponse?
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

    init(task: URLSessionTask, idleTimeout: TimeInterval, bodyFailure: BodyReadFailure, destination: Destination) {
        self.task = task
        self.idleTimeout = idleTimeout
        self.bodyFailure = bodyFailure
        self.destination = destination
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
