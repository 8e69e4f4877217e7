import Foundation
import RequestKitModel

/// One request on its way through the pool and onto a connection, and the awaiting task's continuation, resumed
/// exactly once with an ``Outcome``.
///
/// The request's bytes and options are immutable; its state is guarded by a lock. Cancellation may come from any
/// thread: a job waiting in the pool leaves the queue, a running one closes its connection.
///
/// ```swift
/// let outcome = await withCheckedContinuation { continuation in
///     job.begin(continuation)
///     pool.submit(job)
/// }
/// ```
final class RequestJob: @unchecked Sendable {
    // Safe: `waiter`, `isFinished`, `isCancelled`, `connection` and `retried` are only touched while holding
    // `lock`; `poolID` only while holding the pool's lock; `refusals`, `unprocessedResends` and `requiresFreshConnection` are set by the
    // connection that hands the job back before it submits it again (the pool's lock orders the two); everything
    // else is a `let`. `record` is written by the connection that runs the job before it finishes the job; the
    // awaiting task reads it under `lock` afterwards.

    /// The outcome of a buffered exchange: the final response head, its raw body, and whether the connection may
    /// carry another request.
    typealias Exchanged = (head: ResponseHead, body: Data, isReusable: Bool)

    /// What the awaiting task gets back.
    enum Outcome: Sendable {
        /// The whole response (``Mode/buffered(bodyLimit:)``); the connection is back in the pool already.
        case response(Exchanged)
        /// The final response head (``Mode/streaming(_:)``); the body follows into the options' continuation.
        case head(ResponseHead)
        /// The request was cancelled.
        case cancelled
        /// No connection came free within the idle timeout.
        case poolWaitTimedOut(isMultiplexed: Bool)
        /// No connection could be opened.
        case connectFailed(NetworkSocket.Failure)
        /// The exchange failed; `wasReused` says whether the connection had carried an earlier request.
        case failed(any Error, wasReused: Bool)
    }

    /// How the response is delivered.
    enum Mode: Sendable {
        /// Read whole, the body held to `bodyLimit` bytes on the wire.
        case buffered(bodyLimit: Int)
        /// Delivered once the head arrives, the body streaming after it.
        case streaming(StreamOptions)

        /// Whether the response's body streams to a consumer.
        var isStreaming: Bool {
            if case .streaming = self { return true }
            return false
        }
    }

    /// The host and port.
    let key: ConnectionKey
    /// The pool the job was submitted to; the connection goes back to it.
    let pool: ConnectionPool
    /// The request head.
    let head: [UInt8]
    /// The in-memory body (possibly empty).
    let body: Data
    /// Makes a reader for a body read as it is sent, after `body` (nil: no such body), each time the request is
    /// sent; `bodyLength` nil means chunked coding.
    let makeBodyReader: (@Sendable () throws -> RequestBodyReader?)?
    /// The announced length of the body the reader reads.
    let bodyLength: Int?
    /// The request method.
    let method: String
    /// The idle timeout in seconds: the longest wait for a pooled connection and for any byte.
    let idleTimeout: Double
    /// The parser limits.
    let limits: ConnectionLimits
    /// How the response is delivered.
    let mode: Mode
    /// The job's identifier in the pool's ``ConnectionPoolStateMachine`` (the pool's, under its lock).
    var poolID: ConnectionPool.Machine.RequestID?
    /// When the job's idle clock started (loop-clock nanoseconds): when it was made. Waiting for a connection,
    /// connecting and being sent again are no progress, so they count against the request's idle timeout; only bytes
    /// of its response (or of a body that waits for room) start it again, on the connection that moves them.
    let idleClockStart: UInt64
    /// What the job's connections saw of its phases, for its ``RequestMetrics/Attempt``; the awaiting task reads
    /// ``finishedRecord`` instead.
    // Unchecked: written only by the connection running the job, under its state lock, and read by the awaiting
    // task (``finishedRecord``) once that connection has let the job go; the runtime's checks cost as much as the
    // writes.
    @exclusivity(unchecked) var record: AttemptRecord

    /// ``record`` once the job has finished, read under the job's lock, which ``finish(_:)`` took after the
    /// connection's last write: that orders the two even when the task resumes without suspending.
    var finishedRecord: AttemptRecord { lock.withLock { record } }

    /// The end of the job's first idle period: the longest it may wait for a connection.
    var idleDeadline: UInt64? {
        idleTimeout.isFinite && idleTimeout > 0 && idleTimeout < 1e6
            ? idleClockStart &+ UInt64(idleTimeout * 1e9) : nil
    }

    /// How many times HTTP/2 servers refused the request's stream (`REFUSED_STREAM`), each time sent again: at most
    /// ``maxRefusals`` in all, whatever the connections served. Only the connection running the job touches it.
    @exclusivity(unchecked) var refusals = 0

    /// How many times the request was sent again because a server going away had not reached its stream: at most
    /// ``maxUnprocessedResends`` in all. Only the connection running the job touches it.
    @exclusivity(unchecked) var unprocessedResends = 0

    /// The most times a request is sent again after its stream was refused.
    static let maxRefusals = 4

    /// The most times a request is sent again after servers going away did not reach it: enough for a burst to
    /// drain through connections that each serve a few streams before going away, and still a bound when each new
    /// connection goes away at once.
    static let maxUnprocessedResends = 32

    /// Whether the job must go on a connection opened for it: it is sent again after a kept-alive connection closed
    /// before responding, and another kept-alive connection to the same server may be just as stale. Set before the
    /// job is submitted again; the pool reads it under its lock.
    @exclusivity(unchecked) var requiresFreshConnection = false

    /// Whether the request has already been sent again after a kept-alive connection closed before responding.
    var hasRetried: Bool {
        get { lock.withLock { retried } }
        set { lock.withLock { retried = newValue } }
    }

    private let lock = NSLock()
    private var waiter: Waiter?
    private var isFinished = false
    private var isCancelled = false
    private var connection: PooledConnection?
    private var retried = false

    init(
        key: ConnectionKey, pool: ConnectionPool, head: [UInt8], body: Data,
        makeBodyReader: (@Sendable () throws -> RequestBodyReader?)? = nil, bodyLength: Int? = nil, method: String,
        idleTimeout: Double,
        limits: ConnectionLimits, mode: Mode, recordsMetrics: Bool = true
    ) {
        self.key = key
        self.pool = pool
        self.head = head
        self.body = body
        self.makeBodyReader = makeBodyReader
        self.bodyLength = bodyLength
        self.method = method
        self.idleTimeout = idleTimeout
        self.limits = limits
        self.mode = mode
        let now = pool.clock.now()
        idleClockStart = now
        record = AttemptRecord(started: now, isRecording: recordsMetrics)
    }

    /// Whether the request is a HEAD request, whose response has no body.
    var isHeadRequest: Bool { method == "HEAD" }

    /// Whether the request may be sent twice.
    var isIdempotent: Bool { NativeTransport.isIdempotent(method) }

    /// Whether the awaiting task was cancelled.
    var wasCancelled: Bool { lock.withLock { isCancelled } }

    /// Who waits for the outcome.
    private enum Waiter {
        /// An awaiting task.
        case task(CheckedContinuation<Outcome, Never>)
        /// A function called with the outcome, on the thread that ends the job (tests that turn a loop by hand).
        case handler(@Sendable (Outcome) -> Void)

        func resume(_ outcome: Outcome) {
            switch self {
            case .task(let continuation): continuation.resume(returning: outcome)
            case .handler(let handler): handler(outcome)
            }
        }
    }

    /// Keeps the continuation to resume; resumes it at once when the task is cancelled already.
    func begin(_ continuation: CheckedContinuation<Outcome, Never>) {
        begin(.task(continuation))
    }

    /// Keeps `handler`, called once with the outcome, on the thread that ends the job.
    func begin(handler: @escaping @Sendable (Outcome) -> Void) {
        begin(.handler(handler))
    }

    private func begin(_ waiter: Waiter) {
        let cancelled: Bool = lock.withLock {
            if isCancelled { return true }
            self.waiter = waiter
            return false
        }
        if cancelled {
            lock.withLock { isFinished = true }
            waiter.resume(.cancelled)
        }
    }

    /// Notes the connection the job runs on, for cancellation.
    func assign(_ connection: PooledConnection) {
        lock.withLock { self.connection = connection }
    }

    /// Resumes the awaiting task, unless it was resumed already.
    func finish(_ outcome: Outcome) {
        let waiting: Waiter? = lock.withLock {
            guard !isFinished else { return nil }
            isFinished = true
            connection = nil
            defer { waiter = nil }
            return waiter
        }
        waiting?.resume(outcome)
    }

    /// Cancels the job from any thread: it leaves the pool's queue, or its connection closes.
    func cancel() {
        let running: PooledConnection?? = lock.withLock {
            guard !isFinished, !isCancelled else { return .none }
            isCancelled = true
            return .some(connection)
        }
        guard case .some(let connection) = running else { return }
        if let connection {
            connection.cancel(self)
        } else if pool.removeWaiter(self) {
            finish(.cancelled)
        }
    }
}

/// What a streamed response needs once its head arrives.
struct StreamOptions: Sendable {
    /// The request's URL, for the response.
    let url: URL
    /// Where the body goes: the producing side of the stream the awaiting task made.
    let continuation: ResponseBodyStream.Continuation
    /// The response limits.
    let responseLimits: ResponseLimits
}
