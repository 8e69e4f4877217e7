import Foundation

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
    // Safe: `continuation`, `isFinished`, `isCancelled`, `connection` and `retried` are only touched while holding
    // `lock`; `poolID` only while holding the pool's lock; `idleClockStart` is set before the job is submitted or
    // handed to a connection (through the pool's lock or the loop's queue, which order the two); everything else is
    // a `let`. `record` is written by the connection that runs the job (under its state lock) before it finishes
    // the job; the awaiting task reads it under `lock` afterwards.

    /// What the awaiting task gets back.
    enum Outcome: Sendable {
        /// The whole response (``Mode/buffered(bodyLimit:)``); the connection is back in the pool already.
        case response(HTTP1Connection.Exchanged)
        /// The final response head (``Mode/streaming(_:)``); the body follows into the options' continuation.
        case head(ResponseHead)
        /// The request was cancelled.
        case cancelled
        /// No connection came free within the idle timeout.
        case poolWaitTimedOut
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
    /// When the job's idle clock started (``EventLoop/now()`` nanoseconds): when it was made, or sent again
    /// after a stale connection. Waiting for a connection is no progress, so the wait counts against the request's
    /// idle timeout.
    var idleClockStart: UInt64
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

    /// How many times in a row an HTTP/2 connection that served nothing said it did not process the request (it
    /// refused the stream, or went away below it), each time sent again on another connection; only the connection
    /// running the job touches it.
    @exclusivity(unchecked) var refusals = 0

    /// Whether the request has already been sent again after a kept-alive connection closed before responding.
    var hasRetried: Bool {
        get { lock.withLock { retried } }
        set { lock.withLock { retried = newValue } }
    }

    private let lock = NSLock()
    private var continuation: CheckedContinuation<Outcome, Never>?
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
        let now = EventLoop.now()
        idleClockStart = now
        record = AttemptRecord(started: now, isRecording: recordsMetrics)
    }

    /// Whether the request is a HEAD request, whose response has no body.
    var isHeadRequest: Bool { method == "HEAD" }

    /// Whether the request may be sent twice.
    var isIdempotent: Bool { NativeTransport.isIdempotent(method) }

    /// Whether the awaiting task was cancelled.
    var wasCancelled: Bool { lock.withLock { isCancelled } }

    /// Keeps the continuation to resume; resumes it at once when the task is cancelled already.
    func begin(_ continuation: CheckedContinuation<Outcome, Never>) {
        let cancelled: Bool = lock.withLock {
            if isCancelled { return true }
            self.continuation = continuation
            return false
        }
        if cancelled {
            lock.withLock { isFinished = true }
            continuation.resume(returning: .cancelled)
        }
    }

    /// Notes the connection the job runs on, for cancellation.
    func assign(_ connection: PooledConnection) {
        lock.withLock { self.connection = connection }
    }

    /// Resumes the awaiting task, unless it was resumed already.
    func finish(_ outcome: Outcome) {
        let waiting: CheckedContinuation<Outcome, Never>? = lock.withLock {
            guard !isFinished else { return nil }
            isFinished = true
            connection = nil
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: outcome)
    }

    /// Waits on the calling thread, for at most `nanoseconds`, until the job has finished: its continuation is then
    /// resumed before its task suspends, which goes on without a wake-up. Yields the processor between looks, so
    /// the loop and the server keep theirs on a busy machine.
    func awaitFinish(within nanoseconds: UInt64) {
        let deadline = EventLoop.now() &+ nanoseconds
        while !lock.withLock({ isFinished }), EventLoop.now() < deadline { sched_yield() }
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
