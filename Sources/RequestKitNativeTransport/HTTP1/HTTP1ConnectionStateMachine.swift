/// The life of one open HTTP/1.1 connection, with no I/O: its phase, what it knows of the request in flight, and
/// every decision the protocol makes. Each event (a request started, the request written, response bytes, a head
/// parsed, the body complete, the end of the stream, a timeout, a cancellation, a failure) is one mutating call; its
/// result is the action the connection carries out: send, read, deliver, send again on a fresh connection, fail,
/// close, go back to the pool.
///
/// The connection opens already connected (its ``Connector`` resolved, connected and finished the handshakes); what
/// it reads, writes and parses is its shell's work (``HTTP1Connection``), and what is decided about it lives here, so
/// that it can be tested event by event (`HTTP1ConnectionStateMachineTests`). An event the machine cannot take in its
/// state is a fault of the shell's: a debug build stops at it, and a release build fails the request with
/// ``Failure/unexpected(_:)`` rather than going on in a state nobody planned.
///
/// ```
/// idle ─► sending ─► receivingHead ─┬─► receivingBody ─► idle / closed
///   ▲        ▲          │           └─► streaming ⇄ paused ─► idle / closed
///   │        └── 100 ───┘ (an interim answer while the body is written)
///   └──────────── kept alive ◄──────────────────────────┘
/// ```
///
/// ```swift
/// var machine = HTTP1ConnectionStateMachine()
/// machine.requestStarted(isIdempotent: true, canRetry: true, isStillOpen: true)   // .send
/// machine.requestWritten()                                                         // .readResponse
/// machine.finalHeadParsed(.init(isKeepAlive: true))                                // .readBody
/// machine.bodyCompleted(.init())                                                   // .finish(isReusable: true)
/// ```
struct HTTP1ConnectionStateMachine: Sendable, Equatable {
    /// Where the connection is, with what belongs to that phase.
    enum State: Sendable, Equatable {
        /// Open, with no request: kept alive for the next one.
        case idle
        /// Writing the request.
        case sending(Exchange)
        /// Waiting for, and reading, the final response head.
        case receivingHead(Exchange)
        /// Reading a buffered response body.
        case receivingBody(Exchange, FinalHead)
        /// Moving a streamed body to its consumer.
        case streaming(Exchange, FinalHead)
        /// A streamed body's consumer is full: the socket is not read.
        case paused(Exchange, FinalHead)
        /// The socket is closed: the connection carries nothing more.
        case closed
    }

    /// The phase alone, for the shell's choice of what to read or write next.
    enum Phase: Sendable, Equatable {
        case idle, sending, receivingHead, receivingBody, streaming, paused, closed
    }

    /// What the machine knows of the request in flight.
    struct Exchange: Sendable, Equatable {
        /// Whether its method may be sent twice.
        var isIdempotent: Bool
        /// Whether it has not been sent again already.
        var canRetry: Bool
        /// Whether the connection carried a request before this one.
        var isReused: Bool
        /// Whether any byte of the response arrived.
        var hasResponseBytes = false
        /// Whether the server answered before the whole request was written: the connection is not reused.
        var isRequestUnfinished = false
        /// How many interim (1xx) heads arrived.
        var informationalCount = 0
    }

    /// What to do after an event.
    enum Action: Sendable, Equatable {
        /// Nothing more now: wait for readiness, a timer or the next event.
        case none
        /// Write the request.
        case send
        /// The connection closed while it was idle, before the request was written: the request goes to another
        /// connection, as if it had never been here (it was not sent).
        case sendElsewhere
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
        /// and send the same request again, once, on a fresh connection (never on another kept-alive one, which may
        /// be just as stale).
        case retry
        /// Close the connection and fail the job with this reason.
        case fail(Failure)
        /// The idle connection is unusable (the server closed it, or sent bytes nobody asked for): close it and take
        /// it out of the pool.
        case discard
        /// Close the idle connection: the pool let it go.
        case close
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
        /// The final answer was `101 Switching Protocols`: the connection now speaks another protocol, which an
        /// HTTP request cannot be read from.
        case switchedProtocols
        /// No progress for the idle timeout.
        case timedOut
        /// The task was cancelled.
        case cancelled
        /// A failure of the stream, the parser or the system, reported as it is.
        case error
        /// An event the machine could not take in its state: a fault of the connection's own.
        case unexpected(String)
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
    /// How many requests the connection started.
    private(set) var startedCount = 0

    /// The phase, without what belongs to it.
    var phase: Phase {
        switch state {
        case .idle: .idle
        case .sending: .sending
        case .receivingHead: .receivingHead
        case .receivingBody: .receivingBody
        case .streaming: .streaming
        case .paused: .paused
        case .closed: .closed
        }
    }

    /// The request in flight, while there is one.
    var exchange: Exchange? {
        switch state {
        case .sending(let exchange), .receivingHead(let exchange), .receivingBody(let exchange, _),
            .streaming(let exchange, _), .paused(let exchange, _):
            exchange
        case .idle, .closed: nil
        }
    }

    /// Whether the latest request (the current one, or the one that just ended) ran on a connection that carried an
    /// earlier one.
    private(set) var isReused = false

    /// Whether any byte of the current response arrived.
    var hasResponseBytes: Bool { exchange?.hasResponseBytes ?? false }

    // MARK: Requests

    /// A request starts on this idle connection: it is written at once, unless the shell found the connection
    /// closed (`isStillOpen` false), when the request goes elsewhere unsent. A request that reaches a connection
    /// the server closed while it was idle (the pool had handed it over before it learned of the close) goes
    /// elsewhere unsent as well.
    ///
    /// - Parameters:
    ///   - isIdempotent: Whether its method may be sent twice.
    ///   - canRetry: Whether it has not been sent again already.
    ///   - isStillOpen: Whether the idle socket turned out still usable.
    mutating func requestStarted(isIdempotent: Bool, canRetry: Bool, isStillOpen: Bool) -> Action {
        if case .closed = state { return .sendElsewhere }
        guard case .idle = state else { return unexpected("a request started") }
        guard isStillOpen else {
            state = .closed
            return .sendElsewhere
        }
        isReused = startedCount > 0
        let exchange = Exchange(isIdempotent: isIdempotent, canRetry: canRetry, isReused: isReused)
        startedCount += 1
        state = .sending(exchange)
        return .send
    }

    /// The whole request is written: its response is read.
    mutating func requestWritten() -> Action {
        guard case .sending(let exchange) = state else { return unexpected("the request was written") }
        state = .receivingHead(exchange)
        return .readResponse
    }

    /// Response bytes arrived while the request was still being written (a server refusing an upload): the
    /// writing stops, the response is read, and the connection will not be reused.
    mutating func earlyResponseArrived() -> Action {
        guard case .sending(var exchange) = state else { return unexpected("an early response arrived") }
        exchange.hasResponseBytes = true
        exchange.isRequestUnfinished = true
        state = .receivingHead(exchange)
        return .readResponse
    }

    /// Bytes of the response head arrived: from now on, a close is a truncation, never a stale connection.
    mutating func responseBytesArrived() -> Action {
        guard case .receivingHead(var exchange) = state else { return unexpected("response bytes arrived") }
        exchange.hasResponseBytes = true
        state = .receivingHead(exchange)
        return .none
    }

    /// An interim (1xx) head was parsed: the next head is read, or, when it came while the request was still being
    /// written, the writing goes on.
    mutating func informationalHeadParsed() -> Action {
        guard case .receivingHead(var exchange) = state else { return unexpected("an interim head arrived") }
        exchange.hasResponseBytes = true
        exchange.informationalCount += 1
        if exchange.informationalCount > Self.maxInformationalResponses {
            return fail(.tooManyInformationalResponses)
        }
        if exchange.isRequestUnfinished {
            exchange.isRequestUnfinished = false
            state = .sending(exchange)
            return .resumeSending
        }
        state = .receivingHead(exchange)
        return .readNextHead
    }

    /// The final head was parsed: its body is read, or it is handed over at once when the body streams. A
    /// `101 Switching Protocols` fails: the connection speaks something else from here on.
    mutating func finalHeadParsed(_ head: FinalHead) -> Action {
        guard case .receivingHead(var exchange) = state else { return unexpected("a final head arrived") }
        if head.isSwitchingProtocols { return fail(.switchedProtocols) }
        exchange.hasResponseBytes = true
        if head.isStreamed {
            state = .streaming(exchange, head)
            return .deliverHead
        }
        state = .receivingBody(exchange, head)
        return .readBody
    }

    /// The body is whole: the response goes to the job, and the connection back to the pool, kept only when the
    /// server allows it, the request was written whole, nothing else arrived, and the body did not end with the close.
    mutating func bodyCompleted(_ body: CompletedBody) -> Action {
        let exchange: Exchange
        let head: FinalHead
        switch state {
        case .receivingBody(let current, let final), .streaming(let current, let final):
            (exchange, head) = (current, final)
        default:
            return unexpected("the body completed")
        }
        let isReusable =
            head.isKeepAlive && !head.hasAmbiguousFraming && !exchange.isRequestUnfinished && !body.wasDelimitedByClose
            && !body.hasExtraBytes
        state = isReusable ? .idle : .closed
        return .finish(isReusable: isReusable)
    }

    /// A streamed body's consumer has a full buffer.
    mutating func consumerFull() -> Action {
        guard case .streaming(let exchange, let head) = state else { return unexpected("the consumer was full") }
        state = .paused(exchange, head)
        return .pauseReading
    }

    /// A streamed body's consumer read some of it: reading resumes when it was paused.
    mutating func consumerDemanded() -> Action {
        switch state {
        case .paused(let exchange, let head):
            state = .streaming(exchange, head)
            return .resumeReading
        case .streaming:
            return .none
        default:
            return unexpected("the consumer asked for more")
        }
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
            state = .closed
            return .discard
        case .sending(let exchange):
            return closedBeforeResponse(exchange)
        case .receivingHead(let exchange):
            return exchange.hasResponseBytes ? fail(.truncatedHead) : closedBeforeResponse(exchange)
        case .receivingBody, .streaming, .paused:
            guard isDelimitedByClose else { return fail(.truncatedBody) }
            guard isConfirmed else { return fail(.unconfirmedEnd) }
            return .bodyEndsHere
        case .closed:
            return unexpected("the stream ended")
        }
    }

    /// Readable bytes on an idle kept-alive connection: only stream-level bytes (a TLS session ticket) keep it;
    /// application bytes (a stray response) make it unusable.
    mutating func idleBytesArrived(isApplicationData: Bool) -> Action {
        guard case .idle = state else { return unexpected("bytes arrived while idle") }
        guard isApplicationData else { return .none }
        state = .closed
        return .discard
    }

    /// The request's idle timeout passed with no progress. A paused stream waits for its consumer, not the server.
    mutating func timedOut() -> Action {
        switch state {
        case .sending, .receivingHead, .receivingBody, .streaming: return fail(.timedOut)
        case .paused: return .none
        case .idle, .closed: return unexpected("the request timed out")
        }
    }

    /// The job was cancelled.
    mutating func cancelled() -> Action {
        switch state {
        case .idle, .closed: return unexpected("the request was cancelled")
        default: return fail(.cancelled)
        }
    }

    /// Reading, writing or parsing failed: before any response byte a reset is a close before the response (sent
    /// again when allowed); anything else fails the job.
    ///
    /// - Parameter isConnectionReset: Whether the failure is the connection's end (a reset, a broken pipe).
    mutating func failed(isConnectionReset: Bool) -> Action {
        switch state {
        case .sending(let exchange) where isConnectionReset, .receivingHead(let exchange) where isConnectionReset:
            return exchange.hasResponseBytes ? fail(.error) : closedBeforeResponse(exchange)
        case .idle:
            state = .closed
            return .discard
        case .closed:
            return unexpected("the connection failed")
        default:
            return fail(.error)
        }
    }

    /// The pool closes the idle connection.
    mutating func closeRequested() -> Action {
        switch state {
        case .idle:
            state = .closed
            return .close
        case .closed:
            return .none
        default:
            return unexpected("the pool closed a busy connection")
        }
    }

    private mutating func closedBeforeResponse(_ exchange: Exchange) -> Action {
        state = .closed
        if exchange.isReused, exchange.isIdempotent, exchange.canRetry { return .retry }
        return .fail(.closedBeforeResponse(wasReused: exchange.isReused))
    }

    private mutating func fail(_ failure: Failure) -> Action {
        state = .closed
        return .fail(failure)
    }

    /// An event the state cannot take: the shell's fault. Stops a debug build; fails the request otherwise.
    private mutating func unexpected(_ event: String) -> Action {
        let failure = "\(event) while \(phase)"
        assertionFailure("HTTP1ConnectionStateMachine: \(failure)")
        state = .closed
        return .fail(.unexpected(failure))
    }
}
