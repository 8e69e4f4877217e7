#if canImport(CNghttp2)
import Foundation

/// What an ``HTTP2Connection`` holds of one request on a stream: its job, the response head and body as they arrive,
/// and a streamed body's decoding. What is decided about the stream (limits, timeouts, flow control held for a slow
/// consumer) is its ``HTTP2ConnectionStateMachine``'s.
///
/// ```swift
/// let exchange = HTTP2Exchange(job: job, request: HTTP2ConnectionStateMachine.RequestID(1))
/// exchange.body.append(piece)
/// ```
final class HTTP2Exchange {
    /// The request's job.
    let job: RequestJob
    /// The number the connection gave the job.
    let request: HTTP2ConnectionStateMachine.RequestID
    /// The final response head, once it arrived.
    var head: ResponseHead?
    /// A buffered response's body so far.
    var body = Data()
    /// A streamed body's decoded bytes so far.
    var bodyBytes = 0
    /// A streamed body's content decoding.
    var contentDecoder: ContentDecoder?
    /// A streamed body's limit on the wire, and how many times its compressed bytes may expand.
    var bodyLimit = Int.max
    var maxRatio = 0
    /// Whether the head went to the job's task: from then on, failures go to the body's consumer.
    var isDelivered = false

    init(job: RequestJob, request: HTTP2ConnectionStateMachine.RequestID) {
        self.job = job
        self.request = request
    }
}
#endif
