import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// A connection's decisions, event by event, with no socket and no clock: each table is a script of events, the
/// action each must return and the phase it must leave.
@Suite("HTTP/1.1 connection state machine")
struct HTTP1ConnectionStateMachineTests {
    typealias Machine = HTTP1ConnectionStateMachine
    typealias Phase = Machine.Phase

    /// One event of a table.
    enum Event: Sendable {
        case start(idempotent: Bool = true, canRetry: Bool = true, stillOpen: Bool = true)
        case written, earlyBytes, bytes
        case informational
        case finalHead(Machine.FinalHead)
        case bodyDone(Machine.CompletedBody = .init())
        case endOfStream(delimitedByClose: Bool = false, confirmed: Bool = true)
        case idleBytes(application: Bool)
        case timeout, cancel
        case failure(reset: Bool)
        case full, demand
        case closeRequested
    }

    /// An event, the action it must return and the phase after it.
    struct Step: Sendable {
        let event: Event
        let action: Machine.Action
        let phase: Phase
        init(_ event: Event, _ action: Machine.Action, _ phase: Phase) {
            self.event = event
            self.action = action
            self.phase = phase
        }
    }

    static let keepAlive = Machine.FinalHead(isKeepAlive: true)
    static let close = Machine.FinalHead(isKeepAlive: false)
    static let streamed = Machine.FinalHead(isKeepAlive: true, isStreamed: true)

    static func apply(_ event: Event, to machine: inout Machine) -> Machine.Action {
        switch event {
        case .start(let idempotent, let canRetry, let stillOpen):
            machine.requestStarted(isIdempotent: idempotent, canRetry: canRetry, isStillOpen: stillOpen)
        case .written: machine.requestWritten()
        case .earlyBytes: machine.earlyResponseArrived()
        case .bytes: machine.responseBytesArrived()
        case .informational: machine.informationalHeadParsed()
        case .finalHead(let head): machine.finalHeadParsed(head)
        case .bodyDone(let body): machine.bodyCompleted(body)
        case .endOfStream(let delimited, let confirmed):
            machine.endOfStream(isDelimitedByClose: delimited, isConfirmed: confirmed)
        case .idleBytes(let application): machine.idleBytesArrived(isApplicationData: application)
        case .timeout: machine.timedOut()
        case .cancel: machine.cancelled()
        case .failure(let reset): machine.failed(isConnectionReset: reset)
        case .full: machine.consumerFull()
        case .demand: machine.consumerDemanded()
        case .closeRequested: machine.closeRequested()
        }
    }

    @discardableResult
    private static func run(
        _ steps: [Step], from start: Machine = Machine(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine {
        var machine = start
        for (index, step) in steps.enumerated() {
            let comment = Comment(rawValue: "step \(index + 1): \(step.event)")
            let action = apply(step.event, to: &machine)
            #expect(action == step.action, comment, sourceLocation: sourceLocation)
            #expect(machine.phase == step.phase, comment, sourceLocation: sourceLocation)
        }
        return machine
    }

    /// A request on a new connection, through to the response head being awaited.
    static let throughWritten: [Step] = [
        Step(.start(), .send, .sending),
        Step(.written, .readResponse, .receivingHead),
    ]

    /// A machine whose connection is open and idle after one kept-alive exchange.
    static var keptAlive: Machine {
        run(
            throughWritten + [
                Step(.bytes, .none, .receivingHead),
                Step(.finalHead(keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
    }

    @Test("A kept-alive response leaves the connection idle, and the next request is sent on it as a reused one")
    func keepAliveAndReuse() {
        var machine = Self.keptAlive
        #expect(!machine.isReused, "the first request ran on a new connection")
        #expect(machine.requestStarted(isIdempotent: true, canRetry: true, isStillOpen: true) == .send)
        #expect(machine.isReused)
        #expect(machine.startedCount == 2)
        Self.run(
            [
                Step(.written, .readResponse, .receivingHead),
                Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ], from: machine)
    }

    @Test("An idle connection found closed when a request starts sends the request elsewhere, unsent")
    func closedWhenStarting() {
        Self.run([Step(.start(stillOpen: false), .sendElsewhere, .closed)], from: Self.keptAlive)
    }

    @Test("A request that reaches a connection the server closed while it was idle goes elsewhere, unsent")
    func startedAfterTheServerClosed() {
        let endings: [(Event, Machine.Action)] = [
            (.endOfStream(), .discard), (.failure(reset: true), .discard), (.idleBytes(application: true), .discard),
            (.closeRequested, .close),
        ]
        for (ending, action) in endings {
            Self.run(
                [
                    Step(ending, action, .closed),
                    Step(.start(), .sendElsewhere, .closed),
                    Step(.start(stillOpen: false), .sendElsewhere, .closed),
                ], from: Self.keptAlive)
        }
    }

    @Test(
        "The connection is not kept after Connection: close, Content-Length with Transfer-Encoding, extra bytes, or a body ended by the close",
        arguments: [
            (Machine.FinalHead(isKeepAlive: false), Machine.CompletedBody()),
            (Machine.FinalHead(isKeepAlive: true, hasAmbiguousFraming: true), Machine.CompletedBody()),
            (Machine.FinalHead(isKeepAlive: true), Machine.CompletedBody(hasExtraBytes: true)),
            (Machine.FinalHead(isKeepAlive: true), Machine.CompletedBody(wasDelimitedByClose: true)),
        ])
    func notKept(head: Machine.FinalHead, body: Machine.CompletedBody) {
        Self.run(
            Self.throughWritten + [
                Step(.finalHead(head), .readBody, .receivingBody),
                Step(.bodyDone(body), .finish(isReusable: false), .closed),
            ])
    }

    @Test("A final 101 Switching Protocols fails: nothing more can be read as HTTP from the connection")
    func switchingProtocols() {
        Self.run(
            Self.throughWritten + [
                Step(
                    .finalHead(.init(isKeepAlive: true, isSwitchingProtocols: true)), .fail(.switchedProtocols), .closed
                )
            ])
    }

    @Test("A kept-alive connection the server closed before answering: an idempotent request is sent again, once")
    func staleConnectionRetriedOnce() {
        Self.run(
            [
                Step(.start(idempotent: true, canRetry: true), .send, .sending),
                Step(.written, .readResponse, .receivingHead),
                Step(.endOfStream(), .retry, .closed),
            ], from: Self.keptAlive)
        // The same request, sent again (on a kept-alive connection that turns out stale too): not a third time.
        Self.run(
            [
                Step(.start(idempotent: true, canRetry: false), .send, .sending),
                Step(.failure(reset: true), .fail(.closedBeforeResponse(wasReused: true)), .closed),
            ], from: Self.keptAlive)
    }

    @Test("A non-idempotent request on a stale connection fails, and says the connection had been reused")
    func staleConnectionNotRetriedForPost() {
        Self.run(
            [
                Step(.start(idempotent: false), .send, .sending),
                Step(.failure(reset: true), .fail(.closedBeforeResponse(wasReused: true)), .closed),
            ], from: Self.keptAlive)
    }

    @Test("A new connection closed before any response is never sent again: the server may have seen it")
    func newConnectionClosedEarly() {
        Self.run(Self.throughWritten + [Step(.endOfStream(), .fail(.closedBeforeResponse(wasReused: false)), .closed)])
    }

    @Test("Interim (1xx) heads before the final one are skipped; more than ten fail the request")
    func informational() {
        Self.run(
            Self.throughWritten + [
                Step(.bytes, .none, .receivingHead),
                Step(.informational, .readNextHead, .receivingHead),
                Step(.informational, .readNextHead, .receivingHead),
                Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
        let tenAllowed = Array(repeating: Step(.informational, .readNextHead, .receivingHead), count: 10)
        Self.run(
            Self.throughWritten + tenAllowed + [
                Step(.informational, .fail(.tooManyInformationalResponses), .closed)
            ])
    }

    @Test("A response that comes while the request is written stops the writing; the connection is not kept")
    func earlyResponse() {
        Self.run([
            Step(.start(), .send, .sending),
            Step(.earlyBytes, .readResponse, .receivingHead),
            Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
            Step(.bodyDone(), .finish(isReusable: false), .closed),
        ])
    }

    @Test("A 100 Continue while the request is written lets the writing go on, and the connection is kept")
    func continueWhileSending() {
        Self.run([
            Step(.start(), .send, .sending),
            Step(.earlyBytes, .readResponse, .receivingHead),
            Step(.informational, .resumeSending, .sending),
            Step(.written, .readResponse, .receivingHead),
            Step(.finalHead(Self.keepAlive), .readBody, .receivingBody),
            Step(.bodyDone(), .finish(isReusable: true), .idle),
        ])
    }

    @Test("After a 100 Continue, a reset is no stale connection: the server answered, so the request is not sent again")
    func resetAfterContinue() {
        Self.run(
            [
                Step(.start(), .send, .sending),
                Step(.earlyBytes, .readResponse, .receivingHead),
                Step(.informational, .resumeSending, .sending),
                Step(.failure(reset: true), .fail(.error), .closed),
            ], from: Self.keptAlive)
    }

    @Test("A stray response on an idle kept-alive connection discards it; a TLS session ticket keeps it")
    func strayBytesWhileIdle() {
        var machine = Self.keptAlive
        #expect(machine.idleBytesArrived(isApplicationData: false) == .none)
        #expect(machine.phase == .idle)
        #expect(machine.idleBytesArrived(isApplicationData: true) == .discard)
        #expect(machine.phase == .closed)
    }

    @Test("The server closing an idle kept-alive connection, or the pool letting it go, closes it")
    func idleEndings() {
        Self.run([Step(.endOfStream(), .discard, .closed)], from: Self.keptAlive)
        Self.run([Step(.failure(reset: true), .discard, .closed)], from: Self.keptAlive)
        Self.run(
            [Step(.closeRequested, .close, .closed), Step(.closeRequested, .none, .closed)], from: Self.keptAlive)
    }

    @Test("A body delimited by the close ends there when the close is confirmed, and fails when TLS did not confirm it")
    func closeDelimitedBodies() {
        let reading =
            Self.throughWritten + [
                Step(.bytes, .none, .receivingHead), Step(.finalHead(Self.close), .readBody, .receivingBody),
            ]
        Self.run(
            reading + [
                Step(.endOfStream(delimitedByClose: true, confirmed: true), .bodyEndsHere, .receivingBody),
                Step(.bodyDone(.init(wasDelimitedByClose: true)), .finish(isReusable: false), .closed),
            ])
        Self.run(
            reading + [Step(.endOfStream(delimitedByClose: true, confirmed: false), .fail(.unconfirmedEnd), .closed)])
        Self.run(reading + [Step(.endOfStream(delimitedByClose: false), .fail(.truncatedBody), .closed)])
    }

    @Test("The peer closing at every phase: what each must do")
    func peerCloseAtEveryPhase() {
        let head = Self.throughWritten + [Step(.bytes, .none, .receivingHead)]
        let cases: [(String, [Step], Machine.Action)] = [
            ("sending", Array(Self.throughWritten.prefix(1)), .fail(.closedBeforeResponse(wasReused: false))),
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
            #expect(machine.phase == .closed, "\(name)")
        }
    }

    @Test("Cancellation at every busy phase closes the connection and fails the job")
    func cancellationAtEveryPhase() {
        let head = Self.throughWritten + [Step(.bytes, .none, .receivingHead)]
        let phases: [(String, [Step])] = [
            ("sending", Array(Self.throughWritten.prefix(1))),
            ("awaiting the head", Self.throughWritten),
            ("in a buffered body", head + [Step(.finalHead(Self.keepAlive), .readBody, .receivingBody)]),
            ("in a streamed body", head + [Step(.finalHead(Self.streamed), .deliverHead, .streaming)]),
            (
                "in a paused stream",
                head + [Step(.finalHead(Self.streamed), .deliverHead, .streaming), Step(.full, .pauseReading, .paused)]
            ),
        ]
        for (name, steps) in phases {
            var machine = Self.run(steps)
            #expect(machine.cancelled() == .fail(.cancelled), "\(name)")
            #expect(machine.phase == .closed, "\(name)")
        }
    }

    @Test("The idle timeout fails an exchange; a paused stream waits for its consumer, not the server")
    func idleTimeout() {
        var sending = Self.run(Array(Self.throughWritten.prefix(1)))
        #expect(sending.timedOut() == .fail(.timedOut))
        var receiving = Self.run(Self.throughWritten)
        #expect(receiving.timedOut() == .fail(.timedOut))
        var paused = Self.run(
            Self.throughWritten + [
                Step(.finalHead(Self.streamed), .deliverHead, .streaming), Step(.full, .pauseReading, .paused),
            ])
        #expect(paused.timedOut() == .none)
        #expect(paused.phase == .paused)
    }

    @Test("A streamed body pauses while its consumer is full and reads again on demand, then keeps the connection")
    func streamingBackpressure() {
        Self.run(
            Self.throughWritten + [
                Step(.finalHead(Self.streamed), .deliverHead, .streaming),
                Step(.full, .pauseReading, .paused),
                Step(.demand, .resumeReading, .streaming),
                Step(.demand, .none, .streaming),
                Step(.bodyDone(), .finish(isReusable: true), .idle),
            ])
    }

    @Test("A failure that is not a reset fails the job without a retry, even on a reused connection")
    func otherFailures() {
        Self.run(
            [
                Step(.start(idempotent: true), .send, .sending),
                Step(.failure(reset: false), .fail(.error), .closed),
            ], from: Self.keptAlive)
        // A reset after response bytes arrived is not a close before the response.
        Self.run(
            [
                Step(.start(idempotent: true), .send, .sending),
                Step(.written, .readResponse, .receivingHead),
                Step(.bytes, .none, .receivingHead),
                Step(.failure(reset: true), .fail(.error), .closed),
            ], from: Self.keptAlive)
    }

    /// Events no phase of theirs allows, each from a machine in that phase.
    static let impossible: [(String, Event, [Step])] = [
        ("a second request on a busy connection", .start(), Array(throughWritten.prefix(1))),
        ("the request written while idle", .written, []),
        ("an early response while receiving", .earlyBytes, throughWritten),
        ("a head while idle", .finalHead(keepAlive), []),
        ("a body completed while sending", .bodyDone(), Array(throughWritten.prefix(1))),
        ("a timeout while idle", .timeout, []),
        ("a cancellation while idle", .cancel, []),
        ("a full consumer while reading a buffered body", .full, throughWritten),
        ("a stream ending after the connection closed", .endOfStream(), [Step(.closeRequested, .close, .closed)]),
    ]

    @Test(
        "An event the phase cannot take is a fault the machine reports: a debug build stops at it",
        arguments: impossible.indices)
    func impossibleEventsStop(_ index: Int) async {
        await #expect(processExitsWith: .failure) { [index] in
            let (_, event, steps) = HTTP1ConnectionStateMachineTests.impossible[index]
            var machine = Machine()
            for step in steps { _ = HTTP1ConnectionStateMachineTests.apply(step.event, to: &machine) }
            _ = HTTP1ConnectionStateMachineTests.apply(event, to: &machine)
        }
    }
}
