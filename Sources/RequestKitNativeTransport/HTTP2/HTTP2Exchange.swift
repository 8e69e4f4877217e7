#if canImport(CNghttp2)
import Foundation

/// One request on an ``HTTP2Connection``'s stream, and what has come back for it.
final class HTTP2Exchange {
    let job: RequestJob
    /// The final response head, once it came.
    var head: ResponseHead?
    /// A buffered response's body so far.
    var body = Data()
    /// Body bytes received, before decoding.
    var wireBytes = 0
    /// A streamed body's bytes handed to its consumer, decoded.
    var bodyBytes = 0
    /// A streamed body's limit and decompression ratio.
    var bodyLimit = Int.max
    var maxRatio = 0
    var contentDecoder: ContentDecoder?
    /// Whether the head went to the task (a streamed response): what follows goes to the body's consumer.
    var isDelivered = false
    /// Bytes handed to a consumer whose buffer was full, not yet given back to the stream's window.
    var unconsumed = 0
    /// When a byte last moved for the stream (``EventLoop/now()`` nanoseconds).
    var lastActivity: UInt64

    init(job: RequestJob, now: UInt64) {
        self.job = job
        lastActivity = now
    }

    /// When the stream times out if nothing moves: nil when its request has no idle timeout.
    var idleDeadline: UInt64? {
        let seconds = job.idleTimeout
        guard seconds > 0, seconds.isFinite, seconds < 1e8 else { return nil }
        return lastActivity &+ UInt64(seconds * 1e9)
    }
}
#endif
