import Foundation

/// The state of one response body streaming from an ``HTTP1Connection`` into a ``ResponseBodyStream``: its
/// decoders and the consumer's continuation. It lives on the connection's loop, which pauses reading the socket
/// while the consumer's buffer is full and resumes when the continuation asks for more.
final class HTTP1BodyPump {
    /// The response head.
    let head: ResponseHead
    /// The request's URL, for errors.
    let url: URL
    /// Takes the body off the wire.
    var decoder: HTTP1BodyDecoder
    /// Decompresses the body, when the server compressed it.
    let contentDecoder: ContentDecoder?
    /// Where the body goes.
    let continuation: ResponseBodyStream.Continuation
    /// The pool the connection goes back to at the end.
    let pool: ConnectionPool
    /// The idle timeout in seconds.
    let idleTimeout: Double
    /// The body limit in bytes.
    let bodyLimit: Int
    /// The decompression ratio limit.
    let maxRatio: Int
    /// The job's phases so far, completed as the body arrives.
    var record: AttemptRecord
    /// The body's bytes handed to the consumer, decoded.
    var bodyBytes = 0

    init(
        head: ResponseHead, url: URL, decoder: HTTP1BodyDecoder, contentDecoder: ContentDecoder?,
        continuation: ResponseBodyStream.Continuation, pool: ConnectionPool, idleTimeout: Double, bodyLimit: Int,
        maxRatio: Int, record: AttemptRecord
    ) {
        self.head = head
        self.url = url
        self.decoder = decoder
        self.contentDecoder = contentDecoder
        self.continuation = continuation
        self.pool = pool
        self.idleTimeout = idleTimeout
        self.bodyLimit = bodyLimit
        self.maxRatio = maxRatio
        self.record = record
    }
}
