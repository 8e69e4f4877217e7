/// The life of one HTTP/1.1 connection, with no I/O: its phase, what it knows of the request in flight, and every
/// decision the protocol makes. Each event (a request started, connected, handshake done, request written, response
/// bytes, a head parsed, the body complete, the end of the stream, a timeout, a cancellation, a failure) is one
/// mutating call; its result is the action the connection carries out: connect, send, read, deliver, send again on a
/// fresh connection, fail, close, go back to the pool.
///
/// The connection that owns it does the reading, writing and parsing; what is decided about them lives here, so that
/// it can be tested event by event (`HTTP1ConnectionStateMachineTests`).
///
/// ```
/// idle ─► resolving ─► connecting ─► handshaking ─► sending ─► receivingHead ─┬─► receivingBody ─► idle / closed
///   └────────────── (kept alive) ───────────────────┘    ▲          │         └─► streaming ⇄ paused ─► idle / closed
///                                                        └── 100 ───┘ (an interim answer while the body is written)
/// ```
///
/// ```swift
/// var machine = HTTP1ConnectionStateMachine()
/// machine.requestStarted(isIdempotent: true, canRetry: true, isOpen: false)   // .connect
/// machine.connected()                                                          // (handshaking)
/// machine.handshakeCompleted()                                                 // .send
/// machine.requestWritten()                                                     // .readResponse
/// ```
struct HTTP1ConnectionStateMachine: Sendable, Equatable {
    /// Where the connection is.
    enum State: Sendable, Equatable {
        /// No request; the socket is open and kept alive, or closed.
        case idle
        /// Looking the host up.
        case resolving
        /// Connecting to an address.
        case connecting
        /// The TLS handshake (a plain connection passes through at once).
        case handshaking
        /// Writing the request.
        case sending
        /// Waiting for, and reading, the final response head.
        case receivingHead
        /// Reading a buffered response body.
        case receivingBody
        /// Moving a streamed body to its consumer.
        case streaming
        /// A streamed body's consumer is full: the socket is not read.
        case paused
    }

    /// What to do after an event.
    enum Action: Sendable, Equatable {
        /// Nothing more now: wait for readiness, a timer or the next event.
        case none
        /// Open a connection (look the host up, connect, handshake).
        case connect
        /// Write the request.
        case send
        /// Read the response (the request is written, or the server answered early and the writing stopped).
        case readResponse
        /// Go on writing the request after an interim answer.
        case resumeSending
        /// Read the next head after an interim (1xx) one.
        case readNextHead
        /// Read the body of the final response.
        case readBody
        /// Hand the head to the job now; the body streams after it.
        case deliverHead
        /// The body ends with the close of the connection, confirmed: complete it (``bodyCompleted(_:)``).
        case bodyEndsHere
        /// Stop reading the socket until the consumer asks for more.
        case pauseReading
        /// Read again: the consumer asked for more.
        case resumeReading
        /// The response is whole: hand it over, and give the connection back to the pool, to be kept when
        /// `isReusable` (otherwise closed first).
        case finish(isReusable: Bool)
        /// The connection closed before any response byte, on a connection that had carried a request: close it,
        /// and send the same request again on a fresh one, once.
        case retry
        /// Close the connection and fail the job with this reason.
        case fail(Failure)
        /// An idle connection is unusable (the server closed it, or sent bytes nobody asked for): close it and take
        /// it out of the pool.
        case discard
    }

    /// Why a job failed, as the connection reports it.
    enum Failure: Sendable, Equatable {
        /// The connection closed before any response byte, and the request may not be sent again (its method is
        /// not idempotent, it was sent again already, or the connection was new).
        case closedBeforeResponse(wasReused: Bool)
        /// The connection closed partway through the response head.
        case truncatedHead
        /// The connection closed before the end of a body of known length or chunked.
        case truncatedBody
        /// A TLS peer closed TCP without close_notify during a body delimited by the close.
        case unconfirmedEnd
        /// More interim (1xx) responses than allowed.
        case tooManyInformationalResponses
        /// No progress for the idle timeout while opening the connection.
        case connectTimedOut
        /// No progress for the idle timeout on an open connection.
        case timedOut
        /// The task was cancelled.
        case cancelled
        /// A failure of the stream, the parser or the system, reported as it is.
        case error
    }

    /// What the connection learned of a final response head.
    struct FinalHead: Sendable, Equatable {
        /// Whether the server allows another request on the connection (`Connection`, the HTTP version).
        var isKeepAlive: Bool
        /// Whether the head had both Content-Length and Transfer-Encoding (possible when it has no body).
        var hasAmbiguousFraming = false
        /// Whether the status is 101 Switching Protocols.
        var isSwitchingProtocols = false
        /// Whether the body streams to a consumer (rather than being collected).
        var isStreamed = false
    }

    /// What the connection knows of a body that just completed.
    struct CompletedBody: Sendable, Equatable {
        /// Whether the body ended with the connection's close.
        var wasDelimitedByClose = false
        /// Whether bytes beyond the response already arrived (a stray extra response, or garbage).
        var hasExtraBytes = false
    }

    /// The most interim (1xx) responses accepted before the final one.
    static let maxInformationalResponses = 10

    private(set) var state = State.idle
    /// Whether the socket is open.
    private(set) var isOpen = false
    /// Whether the current request runs on a connection that carried an earlier one.
    private(set) var isReused = false
    private var isIdempotent = false
    private var canRetry = false
    /// Whether any byte of the current response arrived.
    private(set) var hasResponseBytes = false
    /// Whether the server answered before the whole request was written: the connection is not reused.
    private(set) var isRequestUnfinished = false
    private var informationalCount = 0
    private var finalHead: FinalHead?

    // MARK: Requests

    /// A request starts on this connection: sent at once on a kept-alive connection (`isOpen`, checked usable),
    /// otherwise after connecting.
    ///
    /// - Parameters:
    ///   - isIdempotent: Whether its method may be sent twice.
    ///   - canRetry: Whether it has not been sent again already.
    ///   - isOpen: Whether the kept-alive socket is still usable.
    mutating func requestStarted(isIdempotent: Bool, canRetry: Bool, isOpen: Bool) -> Action {
        self.isIdempotent = isIdempotent
        self.canRetry = canRetry
        self.isOpen = isOpen
        isReused = isOpen
        hasResponseBytes = false
        isRequestUnfinished = false
        informationalCount = 0
        finalHead = nil
        if isOpen {
            state = .sending
            return .send
        }
        state = .resolving
        return .connect
    }

    /// The host's addresses are known: connecting to them.
    mutating func resolved() {
        if state == .resolving { state = .connecting }
    }

    /// The socket connected: the handshake begins (for plain TCP it completes at once).
    mutating func connected() {
        guard state == .resolving || state == .connecting else { return }
        isOpen = true
        state = .handshaking
    }

    /// The stream is ready: the request is written.
    mutating func handshakeCompleted() -> Action {
        guard state == .handshaking else { return .none }
        state = .sending
        return .send
    }

    /// The whole request is written: its response is read.
    mutating func requestWritten() -> Action {
        guard state == .sending else { return .none }
        state = .receivingHead
        return .readResponse
    }

    /// Response bytes arrived while the request was still being written (a server refusing an upload): the
    /// writing stops, the response is read, and the connection will not be reused.
    mutating func earlyResponseArrived() -> Action {
        guard state == .sending else { return .none }
        hasResponseBytes = true
        isRequestUnfinished = true
        state = .receivingHead
        return .readResponse
    }

    /// Response bytes arrived.
    mutating func responseBytesArrived() {
        hasResponseBytes = true
    }

    /// An interim (1xx) head was parsed: the next head is read, or, when it came while the request was still being
    /// written, the writing goes on.
    mutating func informationalHeadParsed() -> Action {
        guard state == .receivingHead else { return .none }
        informationalCount += 1
        if informationalCount > Self.maxInformationalResponses {
            return fail(.tooManyInformationalResponses)
        }
        if isRequestUnfinished {
            isRequestUnfinished = false
            state = .sending
            return .resumeSending
        }
        return .readNextHead
    }

    /// The final head was parsed: its body is read, or it is handed over at once when the body streams.
    mutating func finalHeadParsed(_ head: FinalHead) -> Action {
        guard state == .receivingHead else { return .none }
        finalHead = head
        if head.isStreamed {
            state = .streaming
            return .deliverHead
        }
        state = .receivingBody
        return .readBody
    }

    /// The body is whole: the response goes to the job, and the connection back to the pool, kept only when the
    /// server allows it, the request was written whole, nothing else arrived, and the body did not end with the close.
    mutating func bodyCompleted(_ body: CompletedBody) -> Action {
        guard state == .receivingBody || state == .streaming, let head = finalHead else { return .none }
        let isReusable =
            head.isKeepAlive && !head.hasAmbiguousFraming && !head.isSwitchingProtocols && !isRequestUnfinished
            && !body.wasDelimitedByClose && !body.hasExtraBytes && isOpen
        state = .idle
        finalHead = nil
        if !isReusable { isOpen = false }
        return .finish(isReusable: isReusable)
    }

    /// A streamed body's consumer has a full buffer.
    mutating func consumerFull() -> Action {
        guard state == .streaming else { return .none }
        state = .paused
        return .pauseReading
    }

    /// A paused consumer asked for more.
    mutating func consumerDemanded() -> Action {
        guard state == .paused else { return .none }
        state = .streaming
        return .resumeReading
    }

    // MARK: Endings

    /// The stream ended (the peer closed). Before any response byte on a reused connection, an idempotent request
    /// that was not sent again yet is sent again; a body delimited by the close completes, unless the close was not
    /// confirmed (TLS without close_notify); anything else is a truncation. An idle connection is discarded.
    ///
    /// - Parameters:
    ///   - isDelimitedByClose: Whether the body being read ends with the close.
    ///   - isConfirmed: Whether the stream's own protocol confirmed the close (always true for plain TCP).
    mutating func endOfStream(isDelimitedByClose: Bool = false, isConfirmed: Bool = true) -> Action {
        switch state {
        case .idle:
            guard isOpen else { return .none }
            isOpen = false
            return .discard
        case .resolving, .connecting, .handshaking, .sending:
            return closedBeforeResponse()
        case .receivingHead:
            return hasResponseBytes ? fail(.truncatedHead) : closedBeforeResponse()
        case .receivingBody, .streaming, .paused:
            guard isDelimitedByClose else { return fail(.truncatedBody) }
            guard isConfirmed else { return fail(.unconfirmedEnd) }
            isOpen = false
            return .bodyEndsHere
        }
    }

    /// The socket closed (after a failure, a cancellation, or when the pool let an idle connection go).
    mutating func closed() {
        state = .idle
        isOpen = false
        finalHead = nil
    }

    /// The job on the connection ended, however it ended: the connection is idle, and open only when it is kept.
    mutating func jobEnded(isKept: Bool) {
        state = .idle
        finalHead = nil
        if !isKept { isOpen = false }
    }

    /// Readable bytes on an idle kept-alive connection: only stream-level bytes (a TLS session ticket) keep it;
    /// application bytes (a stray response) or the end of the stream make it unusable.
    mutating func idleBytesArrived(isApplicationData: Bool) -> Action {
        guard state == .idle, isOpen, isApplicationData else { return .none }
        isOpen = false
        return .discard
    }

    /// The idle timeout passed with no progress.
    mutating func timedOut() -> Action {
        switch state {
        case .idle, .paused: return .none
        case .resolving, .connecting, .handshaking: return fail(.connectTimedOut)
        case .sending, .receivingHead, .receivingBody, .streaming: return fail(.timedOut)
        }
    }

    /// The job was cancelled.
    mutating func cancelled() -> Action {
        guard state != .idle else { return .none }
        return fail(.cancelled)
    }

    /// Reading, writing or parsing failed: before any response byte a reset is a close before the response (sent
    /// again when allowed); anything else fails the job.
    ///
    /// - Parameter isConnectionReset: Whether the failure is the connection's end (a reset, a broken pipe).
    mutating func failed(isConnectionReset: Bool) -> Action {
        guard state != .idle else { return .none }
        if isConnectionReset, !hasResponseBytes, state == .sending || state == .receivingHead {
            return closedBeforeResponse()
        }
        return fail(.error)
    }

    private mutating func closedBeforeResponse() -> Action {
        let wasReused = isReused
        if wasReused, isIdempotent, canRetry {
            canRetry = false
            state = .idle
            isOpen = false
            return .retry
        }
        return fail(.closedBeforeResponse(wasReused: wasReused))
    }

    private mutating func fail(_ failure: Failure) -> Action {
        state = .idle
        isOpen = false
        finalHead = nil
        return .fail(failure)
    }
}
