import Testing

@testable import RequestKitFeatures
@testable import RequestKitJSON
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// The pool's decisions, event by event, with no socket and no clock: each table is a script of events and the
/// action each must return.
@Suite("Connection pool state machine")
struct ConnectionPoolStateMachineTests {
    typealias Machine = ConnectionPoolStateMachine<String>
    typealias C = Machine.ConnectionID
    typealias R = Machine.RequestID

    /// One event of a table, with what it must return.
    enum Step {
        case request(Int, key: String, deadline: UInt64?, now: UInt64, expect: Machine.RequestAction)
        case released(Int, isReusable: Bool, now: UInt64, expect: Machine.ReleaseAction)
        case cancelled(Int, key: String, expect: Bool)
        case timer(deadline: UInt64, now: UInt64, expect: Machine.TimerAction)
        case closed(Int)
        case capacity(Int, to: Int, expect: [Int])
        case closeIdle(expect: [Int])
        /// A request whose connection learns its protocol once open (https offering HTTP/2).
        case negotiating(Int, key: String, deadline: UInt64?, now: UInt64, expect: Machine.RequestAction)
        /// Connection learned its protocol: it carries `capacity` requests; `run` start on it, `create` open
        /// (connection, request).
        case negotiated(Int, capacity: Int, now: UInt64, run: [Int], create: [(Int, Int)])
        case negotiationFailed(Int, now: UInt64, create: [(Int, Int)])
        /// A request that must go on a connection opened for it (sent again after a stale kept-alive one).
        case fresh(Int, key: String, deadline: UInt64?, now: UInt64, expect: Machine.RequestAction)
        case goingAway(Int, expectIdle: Bool)
        case shutdown(failing: [Int], closing: [Int])
    }

    private static func negotiation(run: [Int], create: [(Int, Int)]) -> Machine.NegotiationAction {
        Machine.NegotiationAction(
            run: run.map(R.init), create: create.map { .init(connection: C($0.0), request: R($0.1)) })
    }

    @discardableResult
    private static func run(
        _ steps: [Step], maxPerHost: Int = 2, idleTimeout: UInt64 = 100, aloneAfterOverlap: UInt64 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine {
        var machine = Machine(
            configuration: .init(
                maxConnectionsPerHost: maxPerHost, idleTimeout: idleTimeout, aloneAfterOverlap: aloneAfterOverlap))
        for (index, step) in steps.enumerated() {
            let comment = Comment(rawValue: "step \(index + 1)")
            switch step {
            case .request(let id, let key, let deadline, let now, let expected):
                let action = machine.request(R(id), key: key, deadline: deadline, now: now)
                #expect(action == expected, comment, sourceLocation: sourceLocation)
            case .released(let id, let isReusable, let now, let expected):
                let action = machine.released(C(id), isReusable: isReusable, now: now)
                #expect(action == expected, comment, sourceLocation: sourceLocation)
            case .cancelled(let id, let key, let expected):
                #expect(machine.cancelled(R(id), key: key) == expected, comment, sourceLocation: sourceLocation)
            case .timer(let deadline, let now, let expected):
                let action = machine.timerFired(deadline: deadline, now: now)
                #expect(action == expected, comment, sourceLocation: sourceLocation)
            case .closed(let id):
                machine.closed(C(id))
            case .capacity(let id, let capacity, let expected):
                let started = machine.capacityChanged(C(id), to: capacity)
                #expect(started == expected.map(R.init), comment, sourceLocation: sourceLocation)
            case .negotiating(let id, let key, let deadline, let now, let expected):
                let action = machine.request(R(id), key: key, deadline: deadline, now: now, negotiates: true)
                #expect(action == expected, comment, sourceLocation: sourceLocation)
            case .negotiated(let id, let capacity, let now, let run, let create):
                let action = machine.negotiated(C(id), capacity: capacity, now: now)
                #expect(action == negotiation(run: run, create: create), comment, sourceLocation: sourceLocation)
            case .fresh(let id, let key, let deadline, let now, let expected):
                let action = machine.request(R(id), key: key, deadline: deadline, now: now, fresh: true)
                #expect(action == expected, comment, sourceLocation: sourceLocation)
            case .negotiationFailed(let id, let now, let create):
                let action = machine.negotiationFailed(C(id), now: now)
                #expect(action == negotiation(run: [], create: create), comment, sourceLocation: sourceLocation)
            case .goingAway(let id, let expectIdle):
                #expect(machine.goingAway(C(id)) == expectIdle, comment, sourceLocation: sourceLocation)
            case .closeIdle(let expected):
                let closing = machine.closeIdleConnections()
                #expect(Set(closing) == Set(expected.map(C.init)), comment, sourceLocation: sourceLocation)
            case .shutdown(let failing, let closing):
                let result = machine.shutdown()
                #expect(result.failing == failing.map(R.init), comment, sourceLocation: sourceLocation)
                #expect(Set(result.closing) == Set(closing.map(C.init)), comment, sourceLocation: sourceLocation)
            }
        }
        return machine
    }

    @Test("A request opens a connection; the next one after it is released reuses it (keep-alive)")
    func reuse() {
        let machine = Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .released(0, isReusable: true, now: 10, expect: .none(armTimer: 110)),
            .request(2, key: "a", deadline: nil, now: 20, expect: .run(on: C(0), isAlone: true)),
            .released(0, isReusable: true, now: 30, expect: .none(armTimer: nil)),
        ])
        #expect(machine.connectionCount == 1)
        #expect(machine.idleCount == 1)
    }

    @Test("The most recently freed idle connection is reused first")
    func newestIdleFirst() {
        Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .request(2, key: "a", deadline: nil, now: 0, expect: .createConnection(C(1))),
            .released(0, isReusable: true, now: 1, expect: .none(armTimer: 101)),
            .released(1, isReusable: true, now: 2, expect: .none(armTimer: nil)),
            .request(3, key: "a", deadline: nil, now: 3, expect: .run(on: C(1), isAlone: true)),
            .request(4, key: "a", deadline: nil, now: 3, expect: .run(on: C(0), isAlone: false)),
        ])
    }

    @Test("Hosts are counted apart: each has its own limit and its own idle connections")
    func hostsApart() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "b", deadline: nil, now: 0, expect: .createConnection(C(1))),
                .request(3, key: "a", deadline: 50, now: 0, expect: .wait(armTimer: 50)),
                .released(1, isReusable: true, now: 5, expect: .none(armTimer: nil)),
                .released(0, isReusable: true, now: 6, expect: .run(R(3), on: C(0))),
            ], maxPerHost: 1)
    }

    @Test("Over the per-host limit requests wait, and take released connections in arrival order")
    func waitersInOrder() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .request(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .released(0, isReusable: true, now: 1, expect: .run(R(2), on: C(0))),
                .released(0, isReusable: true, now: 2, expect: .run(R(3), on: C(0))),
                .released(0, isReusable: true, now: 3, expect: .none(armTimer: 103)),
            ], maxPerHost: 1)
        #expect(machine.connectionCount == 1)
        #expect(machine.waitingCount(for: "a") == 0)
    }

    @Test("A connection that closes (Connection: close, a failure) is replaced for the next waiter")
    func closedConnectionReplaced() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .released(0, isReusable: false, now: 1, expect: .createConnection(C(1), for: R(2))),
                .released(1, isReusable: false, now: 2, expect: .none(armTimer: nil)),
            ], maxPerHost: 1)
        #expect(machine.connectionCount == 0)
    }

    @Test("A connection that could not be opened frees its slot")
    func failedConnectionFreesSlot() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .released(0, isReusable: false, now: 1, expect: .none(armTimer: nil)),
                .request(2, key: "a", deadline: nil, now: 2, expect: .createConnection(C(1))),
            ], maxPerHost: 1)
    }

    @Test("A waiter fails at its own deadline; the others keep waiting, and the timer is armed for the next")
    func waiterTimeout() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: 40, now: 0, expect: .wait(armTimer: 40)),
                .request(3, key: "a", deadline: 70, now: 0, expect: .wait(armTimer: nil)),
                .request(4, key: "a", deadline: 20, now: 0, expect: .wait(armTimer: 20)),
                .timer(deadline: 20, now: 20, expect: .init(expired: [R(4)], closing: [], armTimer: 40)),
                .timer(deadline: 40, now: 41, expect: .init(expired: [R(2)], closing: [], armTimer: 70)),
                .released(0, isReusable: true, now: 50, expect: .run(R(3), on: C(0))),
            ], maxPerHost: 1)
        #expect(machine.waitingCount(for: "a") == 0)
    }

    @Test("A timer firing that a sooner deadline superseded does nothing")
    func supersededTimer() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: 90, now: 0, expect: .wait(armTimer: 90)),
                .request(3, key: "a", deadline: 30, now: 0, expect: .wait(armTimer: 30)),
                .timer(deadline: 90, now: 90, expect: .init()),
                .timer(deadline: 30, now: 30, expect: .init(expired: [R(3)], closing: [], armTimer: 90)),
                .timer(deadline: 90, now: 90, expect: .init(expired: [R(2)], closing: [], armTimer: nil)),
            ], maxPerHost: 1)
    }

    @Test("A cancelled waiter leaves the queue; a request already running is its connection's to cancel")
    func cancellation() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .request(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .cancelled(2, key: "a", expect: true),
                .cancelled(2, key: "a", expect: false),
                .cancelled(1, key: "a", expect: false),
                .released(0, isReusable: true, now: 1, expect: .run(R(3), on: C(0))),
            ], maxPerHost: 1)
    }

    @Test("Idle connections close after the idle timeout, each from when it went idle")
    func idleTimeout() {
        let machine = Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .request(2, key: "a", deadline: nil, now: 0, expect: .createConnection(C(1))),
            .released(0, isReusable: true, now: 10, expect: .none(armTimer: 110)),
            .released(1, isReusable: true, now: 60, expect: .none(armTimer: nil)),
            .timer(deadline: 110, now: 110, expect: .init(expired: [], closing: [C(0)], armTimer: 160)),
            .timer(deadline: 160, now: 161, expect: .init(expired: [], closing: [C(1)], armTimer: nil)),
        ])
        #expect(machine.connectionCount == 0)
    }

    @Test("A connection reused before its idle timeout is not closed by the timer")
    func reusedBeforeExpiry() {
        Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .released(0, isReusable: true, now: 10, expect: .none(armTimer: 110)),
            .request(2, key: "a", deadline: nil, now: 50, expect: .run(on: C(0), isAlone: true)),
            .timer(deadline: 110, now: 110, expect: .init()),
            .released(0, isReusable: true, now: 120, expect: .none(armTimer: 220)),
        ])
    }

    @Test("An idle connection the server closed is forgotten, and the next request opens a new one")
    func peerClosedIdle() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .released(0, isReusable: true, now: 1, expect: .none(armTimer: 101)),
                .closed(0),
                .request(2, key: "a", deadline: nil, now: 2, expect: .createConnection(C(1))),
            ], maxPerHost: 1)
        #expect(machine.connectionCount == 1)
    }

    @Test("isAlone tells whether a request is the only one in flight in the whole pool")
    func isAlone() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "b", deadline: nil, now: 0, expect: .createConnection(C(1))),
                .released(0, isReusable: true, now: 1, expect: .none(armTimer: 101)),
                .request(3, key: "a", deadline: nil, now: 2, expect: .run(on: C(0), isAlone: false)),
                .released(1, isReusable: true, now: 3, expect: .none(armTimer: nil)),
                .released(0, isReusable: true, now: 4, expect: .none(armTimer: nil)),
                .request(4, key: "b", deadline: nil, now: 5, expect: .run(on: C(1), isAlone: true)),
            ], maxPerHost: 1)
    }

    @Test("A request is alone only once requests have gone one at a time for the quiet period")
    func aloneAfterOverlap() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .released(0, isReusable: true, now: 1, expect: .none(armTimer: 1001)),
                // No request ever overlapped: the next is alone at once.
                .request(2, key: "a", deadline: nil, now: 2, expect: .run(on: C(0), isAlone: true)),
                // A second request while the first is in flight: the two overlap at 3.
                .request(3, key: "a", deadline: nil, now: 3, expect: .createConnection(C(1))),
                .released(0, isReusable: true, now: 4, expect: .none(armTimer: nil)),
                .released(1, isReusable: true, now: 5, expect: .none(armTimer: nil)),
                // One at a time again, but 9 after the overlap: not alone yet.
                .request(4, key: "a", deadline: nil, now: 12, expect: .run(on: C(1), isAlone: false)),
                .released(1, isReusable: true, now: 12, expect: .none(armTimer: nil)),
                // 10 after it: alone.
                .request(5, key: "a", deadline: nil, now: 13, expect: .run(on: C(1), isAlone: true)),
                .released(1, isReusable: true, now: 14, expect: .none(armTimer: nil)),
                // A request that waits is an overlap too.
                .request(6, key: "a", deadline: nil, now: 20, expect: .run(on: C(1), isAlone: true)),
                .request(7, key: "a", deadline: nil, now: 20, expect: .run(on: C(0), isAlone: false)),
                .request(8, key: "a", deadline: nil, now: 21, expect: .wait(armTimer: nil)),
                .released(1, isReusable: true, now: 22, expect: .run(R(8), on: C(1))),
                .released(0, isReusable: true, now: 23, expect: .none(armTimer: nil)),
                .released(1, isReusable: true, now: 24, expect: .none(armTimer: nil)),
                .request(9, key: "a", deadline: nil, now: 30, expect: .run(on: C(1), isAlone: false)),
                .released(1, isReusable: true, now: 30, expect: .none(armTimer: nil)),
                .request(10, key: "a", deadline: nil, now: 31, expect: .run(on: C(1), isAlone: true)),
            ], idleTimeout: 1000, aloneAfterOverlap: 10)
    }

    @Test("A connection of larger capacity carries several requests; waiters take the room it gains")
    func capacity() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .request(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .request(4, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                // The server allows three streams: two waiters start on the same connection.
                .capacity(0, to: 3, expect: [2, 3]),
                .released(0, isReusable: true, now: 1, expect: .run(R(4), on: C(0))),
                .released(0, isReusable: true, now: 2, expect: .none(armTimer: nil)),
                .request(5, key: "a", deadline: nil, now: 3, expect: .run(on: C(0), isAlone: false)),
                .request(6, key: "a", deadline: nil, now: 3, expect: .wait(armTimer: nil)),
            ], maxPerHost: 1)
        #expect(machine.connectionCount == 1)
        #expect(machine.waitingCount(for: "a") == 1)
    }

    @Test("Busy requests count each stream of a multiplexed connection; a connection removed takes its requests along")
    func busyRequestsCountStreams() {
        var machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .request(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .capacity(0, to: 3, expect: [2, 3]),
                .request(4, key: "b", deadline: nil, now: 0, expect: .createConnection(C(1))),
            ], maxPerHost: 1)
        #expect(machine.busyConnectionCount == 2)
        #expect(machine.busyRequestCount == 4)
        _ = machine.released(C(0), isReusable: true, now: 1)
        #expect(machine.busyRequestCount == 3)
        // Connection 0 closes with its two requests still on it.
        machine.closed(C(0))
        #expect(machine.busyConnectionCount == 1)
        #expect(machine.busyRequestCount == 1)
        _ = machine.released(C(1), isReusable: true, now: 2)
        #expect(machine.busyConnectionCount == 0)
        #expect(machine.busyRequestCount == 0)
        // A release the machine does not expect counts nothing below zero.
        _ = machine.released(C(1), isReusable: true, now: 3)
        #expect(machine.busyRequestCount == 0)
    }

    @Test("A full multiplexed connection leaves room for a second one under the per-host limit")
    func secondConnectionWhenFull() {
        Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .capacity(0, to: 2, expect: []),
            .request(2, key: "a", deadline: nil, now: 0, expect: .run(on: C(0), isAlone: false)),
            .request(3, key: "a", deadline: nil, now: 0, expect: .createConnection(C(1))),
        ])
    }

    @Test("closeIdleConnections closes the idle ones only")
    func closeIdle() {
        let machine = Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .request(2, key: "a", deadline: nil, now: 0, expect: .createConnection(C(1))),
            .released(1, isReusable: true, now: 1, expect: .none(armTimer: 101)),
            .closeIdle(expect: [1]),
            .released(0, isReusable: true, now: 2, expect: .none(armTimer: nil)),
        ])
        #expect(machine.connectionCount == 1)
    }

    @Test("Shutdown fails the waiters, closes idle connections, and busy ones when they are released")
    func shutdown() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "b", deadline: nil, now: 0, expect: .createConnection(C(1))),
                .released(1, isReusable: true, now: 1, expect: .none(armTimer: 101)),
                .request(3, key: "a", deadline: 10, now: 1, expect: .wait(armTimer: 10)),
                .shutdown(failing: [3], closing: [1]),
                .released(0, isReusable: true, now: 2, expect: .close),
                .request(4, key: "a", deadline: nil, now: 3, expect: .fail(.shutdown)),
            ], maxPerHost: 1)
        #expect(machine.connectionCount == 0)
    }

    @Test("A released connection the machine does not know changes nothing")
    func unknownConnection() {
        let machine = Self.run([
            .released(7, isReusable: true, now: 0, expect: .none(armTimer: nil)),
            .closed(7),
        ])
        #expect(machine.connectionCount == 0)
        #expect(machine.busyConnectionCount == 0)
    }

    @Test("Ten thousand waiters are served in order without losing one")
    func manyWaiters() {
        var machine = Machine(configuration: .init(maxConnectionsPerHost: 1, idleTimeout: 100))
        #expect(machine.request(R(0), key: "a", deadline: nil, now: 0) == .createConnection(C(0)))
        for id in 1...10_000 {
            #expect(machine.request(R(id), key: "a", deadline: nil, now: 0) == .wait(armTimer: nil))
        }
        var order: [Int] = []
        while case .run(let request, _) = machine.released(C(0), isReusable: true, now: 1) {
            order.append(request.value)
        }
        #expect(order == Array(1...10_000))
        #expect(machine.waitingCount(for: "a") == 0)
    }

    // MARK: Connections that learn their protocol (HTTP/2 or HTTP/1.1) once open

    @Test("A burst to a new host opens one connection and waits for its protocol; HTTP/2 runs them all on it")
    func burstWaitsForProtocol() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiating(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiating(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiating(4, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiated(0, capacity: 100, now: 1, run: [2, 3, 4], create: []),
                .negotiating(5, key: "a", deadline: nil, now: 2, expect: .run(on: C(0), isAlone: false)),
            ], maxPerHost: 16)
    }

    @Test("When the server picks HTTP/1.1, the waiters open connections of their own up to the host's limit")
    func burstFallsBackToHTTP1() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiating(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiating(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiating(4, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiated(0, capacity: 1, now: 1, run: [], create: [(1, 2), (2, 3)]),
                // The host is known to speak HTTP/1.1: no more waiting for a protocol.
                .released(1, isReusable: true, now: 2, expect: .run(R(4), on: C(1))),
            ], maxPerHost: 3)
    }

    @Test("A connection not expected to negotiate that turns out to speak HTTP/2 takes its waiters up to its capacity")
    func unexpectedHTTP2TakesWaiters() {
        Self.run(
            [
                // Plain requests (no negotiation): the host opens one connection each, up to its limit of 1.
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .request(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .request(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                // Its server speaks HTTP/2 after all: its room grows, and the waiters run on it in order.
                .negotiated(0, capacity: 10, now: 1, run: [2, 3], create: []),
                .request(4, key: "a", deadline: nil, now: 2, expect: .run(on: C(0), isAlone: false)),
            ], maxPerHost: 1)
    }

    @Test("A full HTTP/2 connection makes the pool open another, which negotiates in turn")
    func fullConnectionOpensAnother() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiated(0, capacity: 2, now: 1, run: [], create: []),
                .negotiating(2, key: "a", deadline: nil, now: 1, expect: .run(on: C(0), isAlone: false)),
                .negotiating(3, key: "a", deadline: nil, now: 1, expect: .createConnection(C(1))),
                .negotiating(4, key: "a", deadline: 9, now: 1, expect: .wait(armTimer: 9)),
                .negotiated(1, capacity: 2, now: 2, run: [4], create: []),
                // Both full and the host at its limit: the next waits for a stream to end.
                .negotiating(5, key: "a", deadline: nil, now: 3, expect: .wait(armTimer: nil)),
                .released(0, isReusable: true, now: 4, expect: .run(R(5), on: C(0))),
            ], maxPerHost: 2)
    }

    @Test("A connection that fails before it negotiates hands its waiters a connection of their own")
    func negotiationFailure() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiating(2, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiating(3, key: "a", deadline: nil, now: 0, expect: .wait(armTimer: nil)),
                .negotiationFailed(0, now: 1, create: [(1, 2)]),
                .negotiated(1, capacity: 100, now: 2, run: [3], create: []),
            ], maxPerHost: 4)
    }

    @Test("A connection opened in place of a closed one to an HTTP/2 host negotiates too, and its waiters run on it")
    func replacementNegotiates() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiated(0, capacity: 2, now: 1, run: [], create: []),
                .negotiating(2, key: "a", deadline: nil, now: 1, expect: .run(on: C(0), isAlone: false)),
                .negotiating(3, key: "a", deadline: nil, now: 1, expect: .wait(armTimer: nil)),
                .released(0, isReusable: false, now: 2, expect: .createConnection(C(1), for: R(3))),
                .negotiating(4, key: "a", deadline: nil, now: 2, expect: .wait(armTimer: nil)),
                .negotiated(1, capacity: 2, now: 3, run: [4], create: []),
            ], maxPerHost: 1)
    }

    @Test("A waiter waiting for a protocol still has its own deadline")
    func negotiationWaiterTimesOut() {
        Self.run([
            .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .negotiating(2, key: "a", deadline: 5, now: 0, expect: .wait(armTimer: 5)),
            .timer(deadline: 5, now: 5, expect: .init(expired: [R(2)], closing: [], armTimer: nil)),
            .negotiated(0, capacity: 100, now: 6, run: [], create: []),
        ])
    }

    @Test("Requests that do not negotiate (plain http) never wait for a protocol")
    func plainRequestsDoNotWait() {
        Self.run([
            .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .request(2, key: "a", deadline: nil, now: 0, expect: .createConnection(C(1))),
        ])
    }

    @Test("A connection whose server goes away takes no new requests and closes after its last one")
    func goingAway() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiated(0, capacity: 10, now: 1, run: [], create: []),
                .negotiating(2, key: "a", deadline: nil, now: 1, expect: .run(on: C(0), isAlone: false)),
                .goingAway(0, expectIdle: false),
                .negotiating(3, key: "a", deadline: nil, now: 2, expect: .createConnection(C(1))),
                .released(0, isReusable: true, now: 3, expect: .none(armTimer: nil)),
                .released(0, isReusable: true, now: 4, expect: .close),
                .closeIdle(expect: []),
            ], maxPerHost: 2)
    }

    @Test("A draining connection's last request hands a waiter a new connection")
    func goingAwayWithWaiters() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiated(0, capacity: 1, now: 1, run: [], create: []),
                .negotiating(2, key: "a", deadline: nil, now: 1, expect: .wait(armTimer: nil)),
                .goingAway(0, expectIdle: false),
                .released(0, isReusable: true, now: 2, expect: .createConnection(C(1), for: R(2))),
            ], maxPerHost: 1)
    }

    @Test("An idle connection whose server goes away is closed at once")
    func goingAwayIdle() {
        Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .released(0, isReusable: true, now: 1, expect: .none(armTimer: 101)),
            .goingAway(0, expectIdle: true),
            .request(2, key: "a", deadline: nil, now: 2, expect: .createConnection(C(1))),
        ])
    }

    @Test("A fresh request opens its own connection under the host's limit, though an idle one is there")
    func freshUnderLimit() {
        let machine = Self.run([
            .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
            .released(0, isReusable: true, now: 1, expect: .none(armTimer: 101)),
            .fresh(2, key: "a", deadline: nil, now: 2, expect: .createConnection(C(1))),
        ])
        #expect(machine.connectionCount == 2)
        #expect(machine.idleCount == 1)
    }

    @Test("At the host's limit, a fresh request closes an idle connection to make room for its own")
    func freshReplacesIdle() {
        let machine = Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .released(0, isReusable: true, now: 1, expect: .none(armTimer: 101)),
                .fresh(2, key: "a", deadline: nil, now: 2, expect: .replaceConnection(closing: C(0), creating: C(1))),
            ], maxPerHost: 1)
        #expect(machine.connectionCount == 1)
        #expect(machine.idleCount == 0)
    }

    @Test(
        "A fresh request waiting at the host's limit takes the room of the next released connection, never the connection"
    )
    func freshWaiterReplacesReleased() {
        Self.run(
            [
                .request(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .fresh(2, key: "a", deadline: 50, now: 1, expect: .wait(armTimer: 50)),
                .released(0, isReusable: true, now: 2, expect: .replace(closing: C(0), creating: C(1), for: R(2))),
                // The waiter's deadline (50) armed the timer already: nothing later needs arming.
                .released(1, isReusable: true, now: 3, expect: .none(armTimer: nil)),
            ], maxPerHost: 1)
    }

    @Test(
        "A draining connection's last request leaves a waiter waiting while a new connection to the HTTP/2 host negotiates"
    )
    func drainingWhileNegotiating() {
        Self.run(
            [
                .negotiating(1, key: "a", deadline: nil, now: 0, expect: .createConnection(C(0))),
                .negotiated(0, capacity: 10, now: 1, run: [], create: []),
                .negotiating(2, key: "a", deadline: nil, now: 1, expect: .run(on: C(0), isAlone: false)),
                .goingAway(0, expectIdle: false),
                .negotiating(3, key: "a", deadline: nil, now: 2, expect: .createConnection(C(1))),
                .negotiating(4, key: "a", deadline: nil, now: 2, expect: .wait(armTimer: nil)),
                .released(0, isReusable: true, now: 3, expect: .none(armTimer: nil)),
                .released(0, isReusable: true, now: 4, expect: .close),
                .negotiated(1, capacity: 10, now: 5, run: [4], create: []),
            ], maxPerHost: 4)
    }
}
