import Foundation
import Testing

@testable import RequestKitConnect
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// The connector's decisions, event by event, with no socket and no clock: the address race delegated to the Happy
/// Eyeballs machine, then the handshakes, the deadlines and how each failure is reported.
@Suite("Connector state machine")
struct ConnectorStateMachineTests {
    typealias Machine = ConnectorStateMachine
    static let ms: UInt64 = 1_000_000
    static let v6 = ScriptedDialer.address("2001:db8::1", port: 443)
    static let v4 = ScriptedDialer.address("192.0.2.1", port: 443)

    static func machine(requestDeadline: UInt64? = nil) -> Machine {
        Machine(host: "dual.test", port: 443, connectDeadline: 10_000 * ms, requestDeadline: requestDeadline)
    }

    @Test("A name is asked for in both families; the first socket to connect is handshaken, the other closed")
    func raceThenHandshake() {
        var machine = Self.machine()
        #expect(
            machine.start(addresses: nil, now: 0) == [
                .resolve(.ipv6), .resolve(.ipv4), .wakeRace(at: 10_000 * Self.ms),
            ])
        #expect(machine.resolved(.ipv6, .success([Self.v6]), now: 1 * Self.ms) == [.connect(0, Self.v6)])
        #expect(machine.resolved(.ipv4, .success([Self.v4]), now: 2 * Self.ms) == [.wakeRace(at: 251 * Self.ms)])
        #expect(machine.raceTimerFired(now: 251 * Self.ms) == [.connect(1, Self.v4), .wakeRace(at: 10_000 * Self.ms)])
        #expect(machine.attemptConnected(1, now: 260 * Self.ms) == [.close(0), .handshake(1)])
        #expect(machine.state == .handshaking(1))
        #expect(machine.attemptFailed(0, .ECONNREFUSED, now: 261 * Self.ms) == [])
        #expect(machine.handshakeFinished() == [.succeed])
        #expect(machine.addressAttempts.map(\.outcome) == [.lostRace, .connected])
    }

    @Test("One address refused fails as a single connection's refusal")
    func singleAddressFailure() {
        var machine = Self.machine()
        _ = machine.start(addresses: [Self.v4], now: 0)
        #expect(
            machine.attemptFailed(0, .ECONNREFUSED, now: 1)
                == [.fail(.couldNotConnect(.system(POSIXError(.ECONNREFUSED))))])
    }

    @Test("Both addresses refused: the race's failure, naming both")
    func everyAddressFailed() {
        var machine = Self.machine()
        _ = machine.start(addresses: [Self.v6, Self.v4], now: 0)
        _ = machine.attemptFailed(0, .ENETUNREACH, now: 1)
        let actions = machine.attemptFailed(1, .ECONNREFUSED, now: 2)
        guard case .fail(.raceFailed(let race, requestDeadlineFirst: false))? = actions.last else {
            Issue.record("expected the race's failure, got \(actions)")
            return
        }
        #expect(race.attempts.map(\.address) == [Self.v6, Self.v4])
        #expect(race.reason == .everyAttemptFailed)
    }

    @Test("One address past the connect timeout is a plain connect timeout; past the request's, the request's")
    func singleAddressTimeouts() {
        var connect = Self.machine()
        _ = connect.start(addresses: [Self.v4], now: 0)
        #expect(connect.raceTimerFired(now: 10_000 * Self.ms).last == .fail(.couldNotConnect(.timedOut)))
        var request = Self.machine(requestDeadline: 1_000 * Self.ms)
        #expect(request.start(addresses: [Self.v4], now: 0) == [.connect(0, Self.v4), .wakeRace(at: 1_000 * Self.ms)])
        #expect(request.deadlinePassed(now: 1_000 * Self.ms) == [.close(0), .fail(.requestTimedOut)])
    }

    @Test("Events after the end change nothing: a late answer, a late socket, a late timer")
    func lateEvents() {
        var machine = Self.machine()
        _ = machine.start(addresses: nil, now: 0)
        #expect(machine.cancelled(now: 1) == [.fail(.cancelled)])
        #expect(machine.resolved(.ipv6, .success([Self.v6]), now: 2) == [])
        #expect(machine.raceTimerFired(now: 3) == [])
        #expect(machine.deadlinePassed(now: 4) == [])
        #expect(machine.state == .failed)
    }

    @Test("A numeric host that is no address fails at once, without a race")
    func invalidLiteral() {
        var machine = Self.machine()
        #expect(
            machine.start(failure: .hostNotFound("Name or service not known"))
                == [.fail(.couldNotConnect(.hostNotFound("Name or service not known")))])
    }

    @Test("An event the state cannot take is a fault the machine reports: a debug build stops at it")
    func impossibleEventStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectorStateMachine(host: "dual.test", port: 443, connectDeadline: 1_000_000)
            let actions = machine.start(addresses: nil, now: 0) + machine.handshakeFinished()
            print(actions)
        }
    }
}
