/// The decisions of one HTTP/2 connection, with no I/O and no clock: where each request goes (a stream now, the
/// queue until the server allows another, or another connection), what each of the session's reports means for its
/// request (a head to deliver, a body over its limit, a response complete, a stream the server did not process and
/// whether it is sent again), what a `GOAWAY` and the connection's end do to the streams and the queue, which
/// requests' idle time ran out, and when the idle connection checks its server with a PING.
///
/// Framing, HPACK, stream states and flow control are the session's (``HTTP2Session``, over nghttp2); the bytes,
/// the jobs, their bodies and their decoding are the shell's (``HTTP2Connection``). Requests are known here by a
/// ``RequestID`` the shell gives each job, streams by their id.
///
/// ```swift
/// var machine = HTTP2ConnectionStateMachine(pingInterval: nil)
/// machine.requestArrived(.init(1), deadline: nil, room: .available)              // .start
/// machine.streamOpened(1, for: .init(1), delivery: .buffered(bodyLimit: 1 << 20), idleTimeout: nil, since: 0)
/// machine.headArrived(on: 1, announcedLength: 2, now: 5)                           // .awaitBody
/// machine.streamEnded(1, now: 6)                                                   // .finish(request 1)
/// ```
struct HTTP2ConnectionStateMachine: Sendable {
    /// A request, as the shell numbers its jobs.
    struct RequestID: Hashable, Sendable, CustomStringConvertible {
        let value: Int
        init(_ value: Int) { self.value = value }
        var description: String { "r\(value)" }
    }

    /// How a request's response is delivered.
    enum Delivery: Sendable, Equatable {
        /// Collected whole, at most `bodyLimit` bytes of body on the wire.
        case buffered(bodyLimit: Int)
        /// Handed over at its head, the body streaming after it, at most `bodyLimit` bytes on the wire.
        case streamed(bodyLimit: Int)
    }

    /// Whether the session can open a stream now.
    enum Room: Sendable, Equatable {
        /// Below the server's `MAX_CONCURRENT_STREAMS`.
        case available
        /// At the server's limit: a stream must end first.
        case full
        /// The connection takes no new streams (its server is going away, or it ended).
        case unavailable
    }

    /// Why a request failed here.
    enum Failure: Sendable, Equatable {
        /// Its body passed its limit on the wire.
        case tooLarge(limit: Int)
        /// The stream ended before a head.
        case truncatedHead
        /// The server refused its stream this many times in all: it is not sent again.
        case refused(times: Int)
        /// Servers going away did not reach it this many times in all: it is not sent again.
        case unprocessed(times: Int)
        /// No byte of its response for its idle timeout.
        case timedOut
        /// It waited for a stream for its idle timeout while the server allowed `maxConcurrentStreams` at once.
        case streamWaitTimedOut(maxConcurrentStreams: Int)
        /// The server sent a head for a stream whose response was delivered already, or a similar impossibility.
        case unexpected(String)
    }

    /// What to do with a request that arrived.
    enum Arrival: Sendable, Equatable {
        /// Open a stream for it now.
        case start
        /// It waits for the server to allow another stream; arm the timer for its deadline when there is one.
        case queue(armTimer: UInt64?)
        /// Send it to another connection: this one takes no new streams.
        case sendElsewhere
    }

    /// What a response head calls for.
    enum HeadAction: Sendable, Equatable {
        /// Nothing: the stream is no longer this connection's (its request ended here already).
        case ignore
        /// A buffered response: its body follows.
        case awaitBody
        /// A streamed response: hand the head to its task now.
        case deliver(RequestID)
        /// Reset the stream and fail its request.
        case abandon(RequestID, Failure)
    }

    /// What a piece of body calls for.
    enum DataAction: Sendable, Equatable {
        /// Nothing: the stream is no longer this connection's.
        case ignore
        /// A buffered response's piece: keep it, and give its bytes back to flow control.
        case keep
        /// A streamed response's piece: decode it and hand it to the consumer, then report
        /// ``pieceHandedOver(on:count:isAccepted:)``.
        case handOver
        /// Reset the stream and fail its request.
        case abandon(RequestID, Failure)
    }

    /// What a stream's end calls for.
    enum EndAction: Sendable, Equatable {
        case ignore
        /// The response is whole: hand it over.
        case finish(RequestID)
        /// It ended before its head.
        case fail(RequestID, Failure)
    }

    /// What a stream the server did not process calls for.
    enum UnprocessedAction: Sendable, Equatable {
        case ignore
        /// Send it again through the pool, its counts now these.
        case resend(RequestID, refusals: Int, unprocessed: Int)
        /// Fail it: it was sent again as often as it may be.
        case fail(RequestID, Failure)
    }

    /// What a cancellation calls for.
    enum CancelAction: Sendable, Equatable {
        /// The request is not here.
        case none
        /// It left the queue: end it as cancelled.
        case dequeued
        /// Reset its stream and end it as cancelled.
        case reset(Int32)
    }

    /// What the server going away calls for.
    struct GoAwayAction: Sendable, Equatable {
        /// Queued requests to send to another connection.
        var elsewhere: [RequestID] = []
        /// Whether the connection carries nothing now: close it.
        var closeNow = false
    }

    /// What the connection's end calls for.
    struct ClosedAction: Sendable, Equatable {
        /// Streams open, whose requests fail; `hadHead` says whether their response had begun.
        var failing: [Failing] = []
        /// Queued requests to send to another connection.
        var elsewhere: [RequestID] = []

        struct Failing: Sendable, Equatable {
            let stream: Int32
            let request: RequestID
            let hadHead: Bool
        }
    }

    /// What the timer's firing calls for.
    struct TimerAction: Sendable, Equatable {
        /// Streams whose request's idle time ran out: reset each, failing it with ``Failure/timedOut``.
        var expiredStreams: [(stream: Int32, request: RequestID)] = []
        /// Queued requests whose deadline passed: fail each with ``Failure/streamWaitTimedOut(maxConcurrentStreams:)``.
        var expiredWaiters: [RequestID] = []
        /// The next deadline to arm the timer for, if any.
        var armTimer: UInt64?

        static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.expiredStreams.map(\.stream) == rhs.expiredStreams.map(\.stream)
                && lhs.expiredStreams.map(\.request) == rhs.expiredStreams.map(\.request)
                && lhs.expiredWaiters == rhs.expiredWaiters && lhs.armTimer == rhs.armTimer
        }
    }

    /// Where the connection is.
    enum Phase: Sendable, Equatable {
        /// Taking new streams.
        case open
        /// Its server is going away: the open streams go on, nothing new starts.
        case goingAway
        /// Over.
        case closed
    }

    private struct Stream: Sendable {
        let request: RequestID
        let delivery: Delivery
        /// The request's idle timeout in nanoseconds, if any.
        let idleTimeout: UInt64?
        var lastActivity: UInt64
        var hasHead = false
        var isDelivered = false
        /// Body bytes received on the wire.
        var wireBytes = 0
        /// Body bytes a full consumer has not taken: the stream's window stays shut meanwhile.
        var held = 0

        var deadline: UInt64? { idleTimeout.map { lastActivity &+ $0 } }
    }

    private struct Waiter: Sendable {
        let request: RequestID
        let deadline: UInt64?
    }

    private(set) var phase = Phase.open
    private var streams: [Int32: Stream] = [:]
    private var waiters: [Waiter] = []
    /// How many streams the connection opened: a request after the first runs on a reused connection.
    private(set) var startedCount = 0
    /// When the idle connection checks that the server is still there (nil: never).
    private var liveness: HTTP2Liveness?
    /// The capacity the pool was last told.
    private(set) var announcedCapacity: Int

    /// A connection whose server allows `capacity` streams at first, checked with a PING after `pingInterval`
    /// nanoseconds idle (nil: never).
    init(capacity: Int = 100, pingInterval: UInt64?) {
        announcedCapacity = capacity
        liveness = pingInterval.map(HTTP2Liveness.init(interval:))
    }

    /// Whether no stream is open and no request waits.
    var isIdle: Bool { streams.isEmpty && waiters.isEmpty }

    /// How many streams are open.
    var openStreamCount: Int { streams.count }

    /// Whether a liveness PING is awaiting its answer.
    var isAwaitingPing: Bool { liveness?.isAwaitingPing ?? false }

    // MARK: Requests

    /// A request came to this connection.
    mutating func requestArrived(_ request: RequestID, deadline: UInt64?, room: Room) -> Arrival {
        guard phase == .open, room != .unavailable else { return .sendElsewhere }
        guard room == .available else {
            waiters.append(Waiter(request: request, deadline: deadline))
            return .queue(armTimer: deadline)
        }
        return .start
    }

    /// The next queued request, when the server allows one more stream.
    mutating func nextWaiter(room: Room) -> RequestID? {
        guard phase == .open, room == .available, !waiters.isEmpty else { return nil }
        return waiters.removeFirst().request
    }

    /// A stream opened for `request`. Its idle time counts from `since` (its submission: waiting is no progress).
    ///
    /// - Returns: The liveness action (a busy connection sends no PING) and the deadline to arm the timer for.
    mutating func streamOpened(
        _ stream: Int32, for request: RequestID, delivery: Delivery, idleTimeout: UInt64?, since: UInt64
    ) -> (liveness: HTTP2Liveness.Action, armTimer: UInt64?) {
        startedCount += 1
        let opened = Stream(request: request, delivery: delivery, idleTimeout: idleTimeout, lastActivity: since)
        streams[stream] = opened
        return (liveness?.becameBusy() ?? .none, opened.deadline)
    }

    /// A request is cancelled.
    mutating func cancelled(_ request: RequestID) -> CancelAction {
        if let index = waiters.firstIndex(where: { $0.request == request }) {
            waiters.remove(at: index)
            return .dequeued
        }
        guard let (stream, open) = streams.first(where: { $0.value.request == request }), !open.isDelivered else {
            return .none
        }
        streams[stream] = nil
        return .reset(stream)
    }

    /// The shell abandons `stream` (its consumer left, its body could not be decoded): it is forgotten.
    mutating func abandoned(_ stream: Int32) -> RequestID? {
        streams.removeValue(forKey: stream)?.request
    }

    // MARK: What the server sent

    /// A final response head arrived on `stream`, announcing `announcedLength` bytes of body when it did.
    mutating func headArrived(on stream: Int32, announcedLength: Int?, now: UInt64) -> HeadAction {
        guard var open = streams[stream] else { return .ignore }
        guard !open.hasHead else { return abandon(stream, open.request, .unexpected("a second head arrived")) }
        open.hasHead = true
        open.lastActivity = now
        switch open.delivery {
        case .buffered(let limit):
            if let announcedLength, announcedLength > limit {
                return abandon(stream, open.request, .tooLarge(limit: limit))
            }
            streams[stream] = open
            return .awaitBody
        case .streamed:
            open.isDelivered = true
            streams[stream] = open
            return .deliver(open.request)
        }
    }

    /// `count` body bytes arrived on `stream`.
    mutating func dataArrived(on stream: Int32, count: Int, now: UInt64) -> DataAction {
        guard var open = streams[stream] else { return .ignore }
        open.lastActivity = now
        open.wireBytes += count
        let limit: Int
        switch open.delivery {
        case .buffered(let bodyLimit), .streamed(let bodyLimit): limit = bodyLimit
        }
        guard open.hasHead else { return abandon(stream, open.request, .unexpected("body bytes came before a head")) }
        guard open.wireBytes <= limit else { return abandon(stream, open.request, .tooLarge(limit: limit)) }
        streams[stream] = open
        if case .streamed = open.delivery { return .handOver }
        return .keep
    }

    /// Bytes of `stream`'s request body went out after the first write that carried its request: the body had
    /// to wait for room (the stream's window or the socket), and each piece sent since is progress, as a response
    /// byte is.
    mutating func uploadProgressed(on stream: Int32, now: UInt64) {
        streams[stream]?.lastActivity = now
    }

    /// A streamed piece of `count` wire bytes was handed to the consumer, which took it (`isAccepted`) or is full.
    ///
    /// - Returns: The bytes to give back to flow control now: none while the consumer is full.
    mutating func pieceHandedOver(on stream: Int32, count: Int, isAccepted: Bool) -> Int {
        guard !isAccepted else { return count }
        streams[stream]?.held += count
        return 0
    }

    /// A streamed body's consumer read some of it.
    ///
    /// - Returns: The bytes to give back to flow control, and the deadline to arm the timer for.
    mutating func consumerDemanded(on stream: Int32, now: UInt64) -> (consume: Int, armTimer: UInt64?) {
        guard var open = streams[stream], open.held > 0 else { return (0, nil) }
        let held = open.held
        open.held = 0
        open.lastActivity = now
        streams[stream] = open
        return (held, open.deadline)
    }

    /// `stream`'s response is complete.
    mutating func streamEnded(_ stream: Int32, now: UInt64) -> EndAction {
        guard let open = streams.removeValue(forKey: stream) else { return .ignore }
        guard open.hasHead else { return .fail(open.request, .truncatedHead) }
        return .finish(open.request)
    }

    /// The server did not process `stream`: refused it (`isRefused`), or went away below it. Its request goes
    /// again, unless it was refused ``RequestJob/maxRefusals`` times, or left unprocessed
    /// ``RequestJob/maxUnprocessedResends`` times, in all (the counts its job carries, `refusals` and
    /// `unprocessed`), whatever the connections served.
    mutating func streamNotProcessed(
        _ stream: Int32, isRefused: Bool, refusals: Int, unprocessed: Int
    ) -> UnprocessedAction {
        guard let open = streams.removeValue(forKey: stream) else { return .ignore }
        guard !open.isDelivered else {
            return .fail(open.request, .unexpected("a stream whose head was delivered was said to be unprocessed"))
        }
        if isRefused {
            let count = refusals + 1
            guard count <= RequestJob.maxRefusals else { return .fail(open.request, .refused(times: count)) }
            return .resend(open.request, refusals: count, unprocessed: unprocessed)
        }
        let count = unprocessed + 1
        guard count <= RequestJob.maxUnprocessedResends else {
            return .fail(open.request, .unprocessed(times: count))
        }
        return .resend(open.request, refusals: refusals, unprocessed: count)
    }

    /// `stream` ended without its whole response (the session says why): its request fails.
    mutating func streamFailed(_ stream: Int32) -> (request: RequestID, hadHead: Bool)? {
        guard let open = streams.removeValue(forKey: stream) else { return nil }
        return (open.request, open.hasHead)
    }

    /// The server is going away: no new streams; the queue goes elsewhere, the open streams go on.
    mutating func serverWentAway() -> GoAwayAction {
        guard phase == .open else { return GoAwayAction() }
        phase = .goingAway
        let elsewhere = waiters.map(\.request)
        waiters = []
        return GoAwayAction(elsewhere: elsewhere, closeNow: streams.isEmpty)
    }

    /// The connection is over: its open streams fail, its queue goes elsewhere.
    mutating func connectionClosed() -> ClosedAction {
        guard phase != .closed else { return ClosedAction() }
        phase = .closed
        let failing = streams.sorted { $0.key < $1.key }.map {
            ClosedAction.Failing(stream: $0.key, request: $0.value.request, hadHead: $0.value.hasHead)
        }
        let elsewhere = waiters.map(\.request)
        streams = [:]
        waiters = []
        return ClosedAction(failing: failing, elsewhere: elsewhere)
    }

    /// Whether the connection should close now: it takes no new streams and carries nothing.
    func isFinished(isAvailable: Bool) -> Bool {
        phase != .closed && !isAvailable && isIdle
    }

    /// The server's stream limit is `capacity` now: the new capacity to tell the pool, when it changed and the
    /// connection still takes streams.
    mutating func capacityChanged(to capacity: Int, isAvailable: Bool) -> Int? {
        guard phase == .open, isAvailable, capacity != announcedCapacity else { return nil }
        announcedCapacity = capacity
        return capacity
    }

    // MARK: Time

    /// The timer fired at `now`: streams idle past their request's timeout (not those waiting for a slow consumer)
    /// and waiters past their deadline expire, with the server's stream limit (`maxConcurrentStreams`) in their
    /// failure.
    mutating func timerFired(now: UInt64, maxConcurrentStreams: Int) -> TimerAction {
        var action = TimerAction()
        var soonest: UInt64?
        for (stream, open) in streams.sorted(by: { $0.key < $1.key }) where open.held == 0 {
            guard let deadline = open.deadline else { continue }
            if deadline <= now {
                action.expiredStreams.append((stream, open.request))
                streams[stream] = nil
            } else {
                soonest = min(soonest ?? .max, deadline)
            }
        }
        var kept: [Waiter] = []
        for waiter in waiters {
            if let deadline = waiter.deadline {
                if deadline <= now {
                    action.expiredWaiters.append(waiter.request)
                    continue
                }
                soonest = min(soonest ?? .max, deadline)
            }
            kept.append(waiter)
        }
        waiters = kept
        action.armTimer = soonest
        return action
    }

    /// The liveness check's events: the connection went idle, its timer fired, or the server answered its PING.
    enum LivenessEvent: Sendable, Equatable {
        case becameIdle
        case timerFired
        case pingAnswered
    }

    /// Hands the liveness check an event at `now`; what it calls for.
    mutating func liveness(_ event: LivenessEvent, now: UInt64) -> HTTP2Liveness.Action {
        guard phase != .closed, var machine = liveness else { return .none }
        let action: HTTP2Liveness.Action
        switch event {
        case .becameIdle: action = isIdle ? machine.becameIdle(at: now) : .none
        case .timerFired: action = machine.timerFired(at: now, isIdle: isIdle)
        case .pingAnswered: action = machine.pingAnswered(at: now, isIdle: isIdle)
        }
        liveness = machine
        return action
    }

    private mutating func abandon(_ stream: Int32, _ request: RequestID, _ failure: Failure) -> HeadAction {
        streams[stream] = nil
        return .abandon(request, failure)
    }

    private mutating func abandon(_ stream: Int32, _ request: RequestID, _ failure: Failure) -> DataAction {
        streams[stream] = nil
        return .abandon(request, failure)
    }
}
