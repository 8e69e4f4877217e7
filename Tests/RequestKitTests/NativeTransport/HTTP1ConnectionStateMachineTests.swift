import Testing

@testable import RequestKit
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// A connection's decisions, event by event, with no socket and no clock: each table is a script of events, the
/// action each must return and the state it must leave.
@Suite("HTTP/1.1 connection state machine")
struct HTTP1ConnectionStateMachineTests {
    typealias Machine = HTTP1ConnectionStateMachine
    typealias State = Machine.State

    /// One event of a table.
    enum Event {
        case start(idempotent: Bool = true, canRetry: Bool = true, open: Bool)
        case resolved, connected, handshakeDone, written, earlyBytes, bytes
        case informational
        case finalHead(Machine.FinalHead)
        case bodyDone(Machine.CompletedBody = .init())
        case endOfStream(delimitedByClose: Bool = false, confirmed: Bool = true)
        case idleBytes(application: Bool)
        case timeout, cancel
        case failure(reset: Bool)
        case full, demand
        case jobEnded(kept: Bool)
    }

    /// An event, the action it must return (none for events that return nothing) and the state after it.
    struct Step {
        let event: Event
        let action: Machine.Action?
        let state: State
        init(_ event: Event, _ action: Machine.Action, _ state: State) {
            self.event = event
            self.action = action
            self.state = state
        }

        /// An event that returns no action.
        init(_ event: Event, _ state: State) {
            self.event = event
            self.action = nil
            self.state = state
        }
    }

    static let keepAlive = Machine.FinalHead(isKeepAlive: true)
    static let close = Machine.FinalHead(isKeepAlive: false)
    static let streamed = Machine.FinalHead(isKeepAlive: true, isStreamed: true)

    @discardableResult
    private static func run(
        _ steps: [Step], from start: Machine = Machine(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine {
        var machine = start
        for (index, step) in steps.enumerated() {
            let comment = Comment(rawValue: "step \(index + 1): \(step.event)")
            var action: Machine.Action?
            switch step.event {
            case .start(let idempotent, let canRetry, let open):
                action = machine.requestStarted(isIdempotent: idempotent, canRetry: canRetry, isOpen: open)
            case .resolved: machine.resolved()
            case .connected: machine.connected()
            case .handshakeDone: action = machine.handshakeCompleted()
            case .written: action = machine.requestWritten()
            case .earlyBytes: action = machine.earlyResponseArrived()
            case .bytes: machine.responseBytesArrived()
            case .informational: action = machine.informationalHeadParsed()
            case .finalHead(let head): action = machine.finalHeadParsed(head)
            case .bodyDone(let body): action = machine.bodyCompleted(body)
            case .endOfStream(let delimited, let confirmed):
                action = machine.endOfStream(isDelimitedByClose: delimited, isConfirmed: confirmed)
            case .idleBytes(let application): action = machine.idleBytesArrived(isApplicationData: application)
            case .timeout: action = machine.timedOut()
            case .cancel: action = machine.cancelled()
            case .failure(let reset): action = machine.failed(isConnectionReset: reset)
            case .full: action = machine.consumerFull()
            case .demand: action = machine.consumerDemanded()
            case .jobEnded(let kept): machine.jobEnded(isKept: kept)
            }
            if let expected = step.action {
                #expect(action == expected, comment, sourceLocation: sourceLocation)
            }
            #expect(machine.state == step.state, comment, sourceLocation: sourceLocation)
        }
        return machine
    }

    /// A new connection through to the response head being awaited.
    static let throughWritten: [Step] = [
        Step(.start(open: false), .connect, .resolving),
        Step(.resolved, .connecting),
        Step(.connected, .handshaking),
        Step(.handshakeDone, .send, .sending),
        Step(.written, .readResponse, .receivingHead),
    ]

    /// A machine whose connection is open and idle after one kept-alive exchange.
    static var keptAlive: Machine {
        run(
            throughWritten + [
                Step(.bytes, .receivingHead),
                Step(.finalHead(keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
    }

    @Test("A kept-alive response leaves the connection open, and the next request is sent on it at once")
    func keepAliveAndReuse() {
        let machine = Self.run(
            [
                Step(.start(open: true), .send, .sending),
                Step(.written, .readResponse, .receivingHead),
                Step(.bytes, .receivingHead),
                Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ], from: Self.keptAlive)
        #expect(machine.isOpen)
        #expect(machine.isReused)
    }

    @Test(
        "The connection is not kept after Connection: close, Content-Length with Transfer-Encoding, 101, extra bytes, or a body ended by the close",
        arguments: [
            (Machine.FinalHead(isKeepAlive: false), Machine.CompletedBody()),
            (Machine.FinalHead(isKeepAlive: true, hasAmbiguousFraming: true), Machine.CompletedBody()),
            (Machine.FinalHead(isKeepAlive: true, isSwitchingProtocols: true), Machine.CompletedBody()),
            (Machine.FinalHead(isKeepAlive: true), Machine.CompletedBody(hasExtraBytes: true)),
            (Machine.FinalHead(isKeepAlive: true), Machine.CompletedBody(wasDelimitedByClose: true)),
        ])
    func notKept(head: Machine.FinalHead, body: Machine.CompletedBody) {
        let machine = Self.run(
            Self.throughWritten + [
                Step(.finalHead(head), .readBody, .receivingBody),
                Step(.bodyDone(body), .finish(isReusable: false), .idle),
            ])
        #expect(!machine.isOpen)
    }

    @Test("A kept-alive connection the server closed before answering: an idempotent request is sent again, once")
    func staleConnectionRetriedOnce() {
        Self.run(
            [
                Step(.start(idempotent: true, canRetry: true, open: true), .send, .sending),
                Step(.written, .readResponse, .receivingHead),
                Step(.endOfStream(), .retry, .idle),
            ], from: Self.keptAlive)
        // The same request, sent again (on a kept-alive connection that turns out stale too): it is not sent a third time.
        Self.run(
            [
                Step(.start(idempotent: true, canRetry: false, open: true), .send, .sending),
                Step(.failure(reset: true), .fail(.closedBeforeResponse(wasReused: true)), .idle),
            ], from: Self.keptAlive)
    }

    @Test("A non-idempotent request on a stale connection fails, and says the connection had been reused")
    func staleConnectionNotRetriedForPost() {
        Self.run(
            [
                Step(.start(idempotent: false, open: true), .send, .sending),
                Step(.failure(reset: true), .fail(.closedBeforeResponse(wasReused: true)), .idle),
            ], from: Self.keptAlive)
    }

    @Test("A new connection closed before any response is never sent again: the server may have seen it")
    func newConnectionClosedEarly() {
        Self.run(Self.throughWritten + [Step(.endOfStream(), .fail(.closedBeforeResponse(wasReused: false)), .idle)])
    }

    @Test("Interim (1xx) heads before the final one are skipped; more than ten fail the request")
    func informational() {
        Self.run(
            Self.throughWritten + [
                Step(.bytes, .receivingHead),
                Step(.informational, .readNextHead, .receivingHead),
                Step(.informational, .readNextHead, .receivingHead),
                Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
        let tenAllowed = Array(repeating: Step(.informational, .readNextHead, .receivingHead), count: 10)
        Self.run(
            Self.throughWritten + tenAllowed + [
                Step(.informational, .fail(.tooManyInformationalResponses), .idle)
            ])
    }

    @Test("A response that comes while the request is written stops the writing; the connection is not kept")
    func earlyResponse() {
        let machine = Self.run(
            Array(Self.throughWritten.prefix(4)) + [
                Step(.earlyBytes, .readResponse, .receivingHead),
                Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: false), .idle),
            ])
        #expect(!machine.isOpen)
    }

    @Test("A 100 Continue while the request is written lets the writing go on, and the connection is kept")
    func continueWhileSending() {
        Self.run(
            Array(Self.throughWritten.prefix(4)) + [
                Step(.earlyBytes, .readResponse, .receivingHead),
                Step(.informational, .resumeSending, .sending),
                Step(.written, .readResponse, .receivingHead),
                Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
    }

    @Test("A stray response on an idle kept-alive connection discards it; a TLS session ticket keeps it")
    func strayBytesWhileIdle() {
        var machine = Self.keptAlive
        #expect(machine.idleBytesArrived(isApplicationData: false) == .none)
        #expect(machine.isOpen)
        #expect(machine.idleBytesArrived(isApplicationData: true) == .discard)
        #expect(!machine.isOpen)
        #expect(machine.state == .idle)
    }

    @Test("The server closing an idle kept-alive connection discards it")
    func idleClosedByPeer() {
        let machine = Self.run([Step(.endOfStream(), .discard, .idle)], from: Self.keptAlive)
        #expect(!machine.isOpen)
    }

    @Test("A body delimited by the close ends there when the close is confirmed, and fails when TLS did not confirm it")
    func closeDelimitedBodies() {
        let reading =
            Self.throughWritten + [
                Step(.bytes, .receivingHead), Step(.finalHead(Self.close), .readBody, .receivingBody),
            ]
        Self.run(
            reading + [
                Step(.endOfStream(delimitedByClose: true, confirmed: true), .bodyEndsHere, .receivingBody),
                Step(.bodyDone(.init(wasDelimitedByClose: true)), .finish(isReusable: false), .idle),
            ])
        Self.run(
            reading + [Step(.endOfStream(delimitedByClose: true, confirmed: false), .fail(.unconfirmedEnd), .idle)])
        Self.run(reading + [Step(.endOfStream(delimitedByClose: false), .fail(.truncatedBody), .idle)])
    }

    @Test("The peer closing at every state: what each must do")
    func peerCloseAtEveryState() {
        let head = Self.throughWritten + [Step(.bytes, .receivingHead)]
        let cases: [(String, [Step], Machine.Action)] = [
            ("resolving", Array(Self.throughWritten.prefix(1)), .fail(.closedBeforeResponse(wasReused: false))),
            ("connecting", Array(Self.throughWritten.prefix(2)), .fail(.closedBeforeResponse(wasReused: false))),
            ("handshaking", Array(Self.throughWritten.prefix(3)), .fail(.closedBeforeResponse(wasReused: false))),
            ("sending", Array(Self.throughWritten.prefix(4)), .fail(.closedBeforeResponse(wasReused: false))),
            ("awaiting the head", Self.throughWritten, .fail(.closedBeforeResponse(wasReused: false))),
            ("in the head", head, .fail(.truncatedHead)),
            (
                "in a buffered body", head + [Step(.finalHead(Self.keepAlive), .readBody, .receivingBody)],
                .fail(.truncatedBody)
            ),
            (
                "in a streamed body", head + [Step(.finalHead(Self.streamed), .deliverHead, .streaming)],
                .fail(.truncatedBody)
            ),
            (
                "in a paused stream",
                head + [
                    Step(.finalHead(Self.streamed), .deliverHead, .streaming), Step(.full, .pauseReading, .paused),
                ],
                .fail(.truncatedBody)
            ),
        ]
        for (name, steps, expected) in cases {
            var machine = Self.run(steps)
            #expect(machine.endOfStream() == expected, "\(name)")
            #expect(machine.state == .idle, "\(name)")
            #expect(!machine.isOpen, "\(name)")
        }
    }

    @Test(
        "Cancellation at every state closes the connection and fails the job; an idle connection has nothing to cancel")
    func cancellationAtEveryState() {
        let head = Self.throughWritten + [Step(.bytes, .receivingHead)]
        let states: [(String, [Step])] = [
            ("resolving", Array(Self.throughWritten.prefix(1))),
            ("connecting", Array(Self.throughWritten.prefix(2))),
            ("handshaking", Array(Self.throughWritten.prefix(3))),
            ("sending", Array(Self.throughWritten.prefix(4))),
            ("awaiting the head", Self.throughWritten),
            ("in a buffered body", head + [Step(.finalHead(Self.keepAlive), .readBody, .receivingBody)]),
            ("in a streamed body", head + [Step(.finalHead(Self.streamed), .deliverHead, .streaming)]),
        ]
        for (name, steps) in states {
            var machine = Self.run(steps)
            #expect(machine.cancelled() == .fail(.cancelled), "\(name)")
            #expect(machine.state == .idle, "\(name)")
            #expect(!machine.isOpen, "\(name)")
        }
        var idle = Self.keptAlive
        #expect(idle.cancelled() == .none)
        #expect(idle.isOpen)
    }

    @Test("The idle timeout fails opening as a connect timeout and an open exchange as no data; idle and paused wait")
    func idleTimeout() {
        var connecting = Self.run(Array(Self.throughWritten.prefix(3)))
        #expect(connecting.timedOut() == .fail(.connectTimedOut))
        var receiving = Self.run(Self.throughWritten)
        #expect(receiving.timedOut() == .fail(.timedOut))
        var paused = Self.run(
            Self.throughWritten + [
                Step(.finalHead(Self.streamed), .deliverHead, .streaming), Step(.full, .pauseReading, .paused),
            ])
        #expect(paused.timedOut() == .none)
        #expect(paused.state == .paused)
        var idle = Self.keptAlive
        #expect(idle.timedOut() == .none)
    }

    @Test("A streamed body pauses while its consumer is full and reads again on demand, then keeps the connection")
    func streamingBackpressure() {
        Self.run(
            Self.throughWritten + [
                Step(.finalHead(Self.streamed), .deliverHead, .streaming),
                Step(.full, .pauseReading, .paused),
                Step(.full, Machine.Action.none, .paused),
                Step(.demand, .resumeReading, .streaming),
                Step(.demand, Machine.Action.none, .streaming),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
    }

    @Test("A failure that is not a reset fails the job without a retry, even on a reused connection")
    func otherFailures() {
        Self.run(
            [
                Step(.start(idempotent: true, open: true), .send, .sending),
                Step(.failure(reset: false), .fail(.error), .idle),
            ], from: Self.keptAlive)
        // A reset after response bytes arrived is not a close before the response.
        Self.run(
            [
                Step(.start(idempotent: true, open: true), .send, .sending),
                Step(.written, .readResponse, .receivingHead),
                Step(.bytes, .receivingHead),
                Step(.failure(reset: true), .fail(.error), .idle),
            ], from: Self.keptAlive)
    }

    @Test("Events that do not fit the state change nothing")
    func outOfOrderEvents() {
        var machine = Machine()
        #expect(machine.handshakeCompleted() == .none)
        #expect(machine.requestWritten() == .none)
        #expect(machine.earlyResponseArrived() == .none)
        #expect(machine.informationalHeadParsed() == .none)
        #expect(machine.finalHeadParsed(Self.keepAlive) == .none)
        #expect(machine.bodyCompleted(.init()) == .none)
        #expect(machine.endOfStream() == .none)
        #expect(machine.failed(isConnectionReset: true) == .none)
        #expect(machine.state == .idle)
        #expect(!machine.isOpen)
    }
}
