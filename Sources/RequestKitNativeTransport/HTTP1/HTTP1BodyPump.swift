import Foundation
import RequestKitModel

/// The state of one response body streaming from an ``HTTP1Connection`` into a ``ResponseBodyStream``: its
/// decoders and the consumer's continuation. It lives on the connection's loop, which pauses reading the socket
/// while the consumer's buffer is full and resumes when the continuation asks for more.
///
/// ```swift
/// let pump = try HTTP1BodyPump(
///     head: head, framing: .chunked, options: options, job: job, generation: 1, connection: connection)
/// let (taken, isFull) = try pump.deliver(buffer.unread)   // decoded, decompressed, yielded
/// ```
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
    private(set) var bodyBytes = 0

    /// The pump for `job`'s body, framed as `framing`, to the consumer `options` names, within its limits. The
    /// consumer's demand and abandonment reach `connection`'s loop as steps naming the pump's `generation`.
    init(
        head: ResponseHead, framing: ResponseHead.Framing, options: StreamOptions, job: RequestJob, generation: Int,
        connection: HTTP1Connection
    ) throws {
        let limits = options.responseLimits
        bodyLimit = limits.maxStreamedBodyBytes ?? .max
        maxRatio = limits.maxDecompressionRatio
        contentDecoder =
            framing == .none
            ? nil
            : try ContentDecoder(
                codings: head.tokens(of: "Content-Encoding"), maxBytes: bodyLimit, maxRatio: maxRatio,
                ratioAllowance: ResponseLimits.decompressionAllowance)
        var bodyLimits = job.limits.body
        bodyLimits.maxBodyBytes = bodyLimit
        decoder = HTTP1BodyDecoder(framing: framing, limits: bodyLimits)
        self.head = head
        url = options.url
        continuation = options.continuation
        pool = job.pool
        idleTimeout = job.idleTimeout
        record = job.record
        options.continuation.onDemand = { [weak connection] in
            connection?.handToLoop(.resumePump(generation: generation))
        }
        options.continuation.onTermination = { [weak connection] in
            connection?.handToLoop(.terminatePump(generation: generation))
        }
    }

    /// Decodes what `unread` holds of the body and yields it, decompressed, to the consumer: the bytes taken from
    /// `unread`, and whether the consumer's buffer is now full (the socket is then not read until it asks for more).
    func deliver(_ unread: UnsafeRawBufferPointer) throws -> (taken: Int, isFull: Bool) {
        var piece = Data()
        let taken = try decoder.decode(unread, into: &piece)
        guard !piece.isEmpty else { return (taken, false) }
        let plain = try contentDecoder?.decode(piece) ?? piece
        bodyBytes += plain.count
        guard !plain.isEmpty, !continuation.yield(plain) else { return (taken, false) }
        if continuation.isTerminated { throw CancellationError() }
        return (taken, true)
    }

    /// The error the consumer sees when the body ends with `error`, on the connection to `key`.
    func failure(for error: any Error, key: ConnectionKey) -> RequestError {
        if error is CancellationError { return RequestError.cancelled(underlyingError: error) }
        if let tooLarge = ResponseTooLarge(error, head: head, bodyLimit: bodyLimit, maxRatio: maxRatio) {
            return tooLarge.requestError(url: url)
        }
        return NativeTransport.requestError(for: error, idleTimeout: idleTimeout, key: key)
    }

    /// Ends the consumer's body at `now` (loop-clock nanoseconds) on the connection to `key` with `facts`: whole, or
    /// with the error `error` comes to (``failure(for:key:)``).
    func end(failing error: (any Error)?, key: ConnectionKey, connection facts: ConnectionFacts?, now: UInt64) {
        continuation.finish(
            throwing: error.map { failure(for: $0, key: key) }, attempt: endedAttempt(connection: facts, now: now))
    }

    /// The attempt as it ends at `now` (loop-clock nanoseconds) on a connection with `facts`; nil when the transport
    /// records no metrics.
    func endedAttempt(connection facts: ConnectionFacts?, now: UInt64) -> RequestMetrics.Attempt? {
        guard record.isRecording else { return nil }
        var record = record
        record.connection = facts
        return record.attempt(
            url: url, status: HTTPStatus(code: head.status), bodyBytes: bodyBytes,
            end: record.complete != 0 ? record.complete : now)
    }
}
