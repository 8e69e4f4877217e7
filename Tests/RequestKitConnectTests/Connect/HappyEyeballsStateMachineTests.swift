import Foundation
import Testing

@testable import RequestKitConnect
@testable import RequestKitModel

/// The connection race of RFC 8305, event by event, with no socket and no clock: each table is a script of events,
/// at times in milliseconds, and the actions each must return.
@Suite("Happy Eyeballs state machine")
struct HappyEyeballsStateMachineTests {
    typealias Machine = HappyEyeballsStateMachine
    typealias Action = Machine.Action

    static let ms: UInt64 = 1_000_000
    static let deadline = 10_000 * ms

    static func address(_ ip: String) -> SocketAddress {
        guard let address = SocketAddress(ip: ip, port: 443) else { preconditionFailure("\(ip) is not numeric") }
        return address
    }

    static let v6a = address("2001:db8::1")
    static let v6b = address("2001:db8::2")
    static let v4a = address("192.0.2.1")
    static let v4b = address("192.0.2.2")

    /// One event of a table, at a time in milliseconds, with what it must return.
    enum Step {
        case start(at: UInt64, expect: [Action])
        case startKnown([SocketAddress], at: UInt64, expect: [Action])
        case resolved(SocketAddress.Family, [SocketAddress], at: UInt64, expect: [Action])
        case resolveFailed(SocketAddress.Family, ResolutionFailure, at: UInt64, expect: [Action])
        case connected(Int, at: UInt64, expect: [Action])
        case failed(Int, POSIXErrorCode, at: UInt64, expect: [Action])
        case timer(at: UInt64, expect: [Action])
        case cancel(at: UInt64, expect: [Action])
    }

    @discardableResult
    static func run(
        _ steps: [Step], configuration: Machine.Configuration = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine {
        var machine = Machine(host: "dual.test", port: 443, configuration: configuration, deadline: deadline)
        for (index, step) in steps.enumerated() {
            let comment = Comment(rawValue: "step \(index + 1)")
            let actions: [Action]
            let expected: [Action]
            switch step {
            case .start(let at, let expect):
                (actions, expected) = (machine.start(now: at * ms), expect)
            case .startKnown(let addresses, let at, let expect):
                (actions, expected) = (machine.start(addresses: addresses, now: at * ms), expect)
            case .resolved(let family, let addresses, let at, let expect):
                (actions, expected) = (machine.resolved(family, .success(addresses), now: at * ms), expect)
            case .resolveFailed(let family, let failure, let at, let expect):
                (actions, expected) = (machine.resolved(family, .failure(failure), now: at * ms), expect)
            case .connected(let id, let at, let expect):
                (actions, expected) = (machine.attemptConnected(id, now: at * ms), expect)
            case .failed(let id, let code, let at, let expect):
                (actions, expected) = (machine.attemptFailed(id, code, now: at * ms), expect)
            case .timer(let at, let expect):
                (actions, expected) = (machine.timerFired(now: at * ms), expect)
            case .cancel(let at, let expect):
                (actions, expected) = (machine.cancel(now: at * ms), expect)
            }
            #expect(actions == expected, comment, sourceLocation: sourceLocation)
        }
        return machine
    }

    /// The outcomes of the machine's attempts, in order.
    static func outcomes(_ machine: Machine) -> [ConnectAttemptRecord.Outcome?] { machine.attempts.map(\.outcome) }

    /// The failure a table ended with.
    static func failure(_ machine: Machine, at time: UInt64) -> ConnectRaceFailure {
        ConnectRaceFailure(
            host: "dual.test", port: 443, reason: .timedOut, attempts: machine.attempts,
            ipv6Answer: machine.ipv6Answer, ipv4Answer: machine.ipv4Answer)
    }

    @Test("both families are asked at once and the deadline is armed")
    func startAsksBothFamilies() {
        Self.run([.start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)])])
    }

    @Test(
        "an AAAA answer first starts IPv6 at once; the families alternate every attempt delay; the winner cancels the rest"
    )
    func aaaaFirstInterleaves() {
        let machine = Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolved(.ipv6, [Self.v6a, Self.v6b], at: 10, expect: [.connect(0, Self.v6a), .wake(at: 260 * Self.ms)]),
            .resolved(.ipv4, [Self.v4a], at: 20, expect: []),
            .timer(at: 260, expect: [.connect(1, Self.v4a), .wake(at: 510 * Self.ms)]),
            .timer(at: 510, expect: [.connect(2, Self.v6b), .wake(at: Self.deadline)]),
            .connected(1, at: 600, expect: [.cancel(0), .cancel(2), .connected(1, Self.v4a)]),
            .resolved(.ipv4, [Self.v4b], at: 700, expect: []),
            .timer(at: 9_999, expect: []),
        ])
        #expect(Self.outcomes(machine) == [.lostRace, .connected, .lostRace])
        #expect(machine.attempts.map(\.started) == [10, 260, 510].map { $0 * Self.ms })
        #expect(machine.attempts.map(\.ended) == [600, 600, 600].map { $0 * Self.ms })
        #expect(machine.isFinished)
    }

    @Test("an A answer first waits the resolution delay for AAAA, then starts IPv4; a late AAAA joins the race")
    func aFirstWaitsResolutionDelay() {
        let machine = Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolved(.ipv4, [Self.v4a, Self.v4b], at: 5, expect: [.wake(at: 55 * Self.ms)]),
            .timer(at: 55, expect: [.connect(0, Self.v4a), .wake(at: 305 * Self.ms)]),
            .resolved(.ipv6, [Self.v6a], at: 100, expect: []),
            .timer(at: 305, expect: [.connect(1, Self.v6a), .wake(at: 555 * Self.ms)]),
            .timer(at: 555, expect: [.connect(2, Self.v4b), .wake(at: Self.deadline)]),
            .connected(1, at: 560, expect: [.cancel(0), .cancel(2), .connected(1, Self.v6a)]),
        ])
        #expect(Self.outcomes(machine) == [.lostRace, .connected, .lostRace])
    }

    @Test("an AAAA answer within the resolution delay goes first")
    func aaaaWithinResolutionDelay() {
        Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolved(.ipv4, [Self.v4a], at: 5, expect: [.wake(at: 55 * Self.ms)]),
            .resolved(.ipv6, [Self.v6a], at: 30, expect: [.connect(0, Self.v6a), .wake(at: 280 * Self.ms)]),
            .timer(at: 280, expect: [.connect(1, Self.v4a), .wake(at: Self.deadline)]),
        ])
    }

    @Test("a failed A query waits for AAAA without a delay; both failing ends the race naming both answers")
    func bothQueriesFail() {
        let notFound = ResolutionFailure(.notFound, "dual.test does not exist")
        Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolveFailed(.ipv4, notFound, at: 5, expect: []),
        ])
        let failure = ConnectRaceFailure(
            host: "dual.test", port: 443, reason: .noAddress, attempts: [],
            ipv6Answer: .failed(ResolutionFailure(.noAddress, "dual.test has no IPv6 address")),
            ipv4Answer: .failed(notFound))
        var again = Machine(host: "dual.test", port: 443, deadline: Self.deadline)
        _ = again.start(now: 0)
        _ = again.resolved(.ipv4, .failure(notFound), now: 5)
        #expect(again.resolved(.ipv6, .success([]), now: 7) == [.failed(failure)])
        #expect(
            failure.description
                == "Could not connect to dual.test port 443 (no address): AAAA: dual.test has no IPv6 address, "
                + "A: dual.test does not exist")
        #expect(failure.requestError.connectionFailure == .hostNotFound)
    }

    @Test("a failed attempt starts the next address at once")
    func failureStartsNextAtOnce() {
        let machine = Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolved(.ipv6, [Self.v6a], at: 10, expect: [.connect(0, Self.v6a)]),
            .resolved(.ipv4, [Self.v4a, Self.v4b], at: 12, expect: [.wake(at: 260 * Self.ms)]),
            .failed(0, .ENETUNREACH, at: 20, expect: [.connect(1, Self.v4a), .wake(at: 270 * Self.ms)]),
            .connected(1, at: 25, expect: [.connected(1, Self.v4a)]),
        ])
        #expect(Self.outcomes(machine) == [.failed(.ENETUNREACH), .connected])
    }

    @Test("every address failing ends the race with each address and its error, as a refused connection")
    func everyAttemptFails() throws {
        var machine = Machine(host: "dual.test", port: 443, deadline: Self.deadline)
        _ = machine.start(addresses: [Self.v4a, Self.v6a], now: 0)
        #expect(
            machine.attemptFailed(0, .ECONNREFUSED, now: Self.ms) == [.connect(1, Self.v4a), .wake(at: Self.deadline)])
        let actions = machine.attemptFailed(1, .ECONNREFUSED, now: 2 * Self.ms)
        guard case .failed(let failure)? = actions.last, actions.count == 1 else {
            Issue.record("expected one failure, got \(actions)")
            return
        }
        #expect(failure.reason == .everyAttemptFailed)
        #expect(
            failure.description
                == "Could not connect to dual.test port 443 (every address failed): [2001:db8::1]:443 failed "
                + "(ECONNREFUSED: Connection refused) after 1 ms; 192.0.2.1:443 failed (ECONNREFUSED: Connection "
                + "refused) after 1 ms")
        #expect(failure.requestError.connectionFailure == .connectionRefused)
        #expect(failure.requestError.kind == .transport)
    }

    @Test("the deadline ends the race: pending attempts are closed and the failure names every address tried")
    func deadlineEndsRace() {
        let machine = Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolved(.ipv6, [Self.v6a], at: 1, expect: [.connect(0, Self.v6a)]),
            .resolved(.ipv4, [Self.v4a], at: 2, expect: [.wake(at: 251 * Self.ms)]),
            .timer(at: 251, expect: [.connect(1, Self.v4a), .wake(at: Self.deadline)]),
        ])
        var finished = machine
        let actions = finished.timerFired(now: Self.deadline)
        let failure = Self.failure(finished, at: Self.deadline)
        #expect(actions == [.cancel(0), .cancel(1), .failed(failure)])
        #expect(Self.outcomes(finished) == [.timedOut, .timedOut])
        #expect(
            failure.description
                == "Could not connect to dual.test port 443 (timed out): [2001:db8::1]:443 timed out after 9999 ms; "
                + "192.0.2.1:443 timed out after 9749 ms")
        #expect(failure.requestError.kind == .timedOut)
    }

    @Test("the deadline while both queries are unanswered says so")
    func deadlineWhileResolving() {
        var machine = Machine(host: "dual.test", port: 443, deadline: Self.deadline)
        _ = machine.start(now: 0)
        let actions = machine.timerFired(now: Self.deadline)
        let failure = ConnectRaceFailure(
            host: "dual.test", port: 443, reason: .timedOut, attempts: [], ipv6Answer: .pending, ipv4Answer: .pending)
        #expect(actions == [.failed(failure)])
        #expect(
            failure.description == "Could not connect to dual.test port 443 (timed out): AAAA: no answer, A: no answer")
    }

    @Test("when every IPv4 attempt failed, the race waits for a late AAAA answer")
    func waitsForLateAAAA() {
        let machine = Self.run([
            .start(at: 0, expect: [.resolve(.ipv6), .resolve(.ipv4), .wake(at: Self.deadline)]),
            .resolved(.ipv4, [Self.v4a], at: 1, expect: [.wake(at: 51 * Self.ms)]),
            .timer(at: 51, expect: [.connect(0, Self.v4a), .wake(at: Self.deadline)]),
            .failed(0, .ECONNREFUSED, at: 52, expect: []),
            .resolved(.ipv6, [Self.v6a], at: 400, expect: [.connect(1, Self.v6a)]),
            .connected(1, at: 401, expect: [.connected(1, Self.v6a)]),
        ])
        #expect(Self.outcomes(machine) == [.failed(.ECONNREFUSED), .connected])
    }

    @Test("known addresses start at once, IPv6 first, with no query")
    func knownAddresses() {
        let machine = Self.run([
            .startKnown(
                [Self.v4a, Self.v4b, Self.v6a], at: 0, expect: [.connect(0, Self.v6a), .wake(at: 250 * Self.ms)]),
            .timer(at: 250, expect: [.connect(1, Self.v4a), .wake(at: 500 * Self.ms)]),
            .timer(at: 500, expect: [.connect(2, Self.v4b), .wake(at: Self.deadline)]),
        ])
        #expect(machine.ipv6Answer == .notAsked)
    }

    @Test("a Unix socket's path goes first, before any IP address, with no query")
    func unixSocketFirst() throws {
        let socket = try SocketAddress(unixPath: "/run/app.sock")
        let machine = Self.run([
            .startKnown(
                [Self.v4a, socket, Self.v6a], at: 0, expect: [.connect(0, socket), .wake(at: 250 * Self.ms)]),
            .timer(at: 250, expect: [.connect(1, Self.v6a), .wake(at: 500 * Self.ms)]),
            .connected(0, at: 260, expect: [.cancel(1), .connected(0, socket)]),
        ])
        #expect(machine.ipv6Answer == .notAsked && machine.ipv4Answer == .notAsked)
        #expect(Self.outcomes(machine) == [.connected, .lostRace])
    }

    @Test("the attempt delay is configurable")
    func configurableAttemptDelay() {
        Self.run(
            [
                .startKnown([Self.v6a, Self.v4a], at: 0, expect: [.connect(0, Self.v6a), .wake(at: 100 * Self.ms)]),
                .timer(at: 100, expect: [.connect(1, Self.v4a), .wake(at: Self.deadline)]),
            ], configuration: .init(resolutionDelay: 50 * Self.ms, attemptDelay: 100 * Self.ms))
    }

    @Test("cancelling closes every pending attempt and nothing follows")
    func cancelClosesPending() {
        let machine = Self.run([
            .startKnown([Self.v6a, Self.v4a], at: 0, expect: [.connect(0, Self.v6a), .wake(at: 250 * Self.ms)]),
            .timer(at: 250, expect: [.connect(1, Self.v4a), .wake(at: Self.deadline)]),
            .cancel(at: 300, expect: [.cancel(0), .cancel(1)]),
            .timer(at: 10_000, expect: []),
            .cancel(at: 10_001, expect: []),
        ])
        #expect(Self.outcomes(machine) == [.abandoned, .abandoned])
    }

    @Test("an address given twice is tried once")
    func duplicatesTriedOnce() {
        Self.run([
            .startKnown([Self.v4a, Self.v4a], at: 0, expect: [.connect(0, Self.v4a), .wake(at: Self.deadline)]),
            .failed(
                0, .ECONNREFUSED, at: 1,
                expect: [
                    .failed(
                        ConnectRaceFailure(
                            host: "dual.test", port: 443, reason: .everyAttemptFailed,
                            attempts: [
                                ConnectAttemptRecord(
                                    address: Self.v4a, started: 0, ended: Self.ms, outcome: .failed(.ECONNREFUSED))
                            ], ipv6Answer: .notAsked, ipv4Answer: .notAsked))
                ]),
        ])
    }
}
