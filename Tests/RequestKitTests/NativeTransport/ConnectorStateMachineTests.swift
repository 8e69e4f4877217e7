import Foundation
import Testing

@testable import RequestKitNativeTransport

/// How a connection is opened, event by event, with no socket and no clock.
@Suite("Connector state machine")
struct ConnectorStateMachineTests {
    typealias Machine = ConnectorStateMachine

    static let first = ScriptedDialer.address("127.0.0.1", port: 8080)
    static let second = ScriptedDialer.address("127.0.0.2", port: 8080)

    @Test("A name is looked up, then its addresses tried; the first that connects runs the handshakes")
    func lookupThenConnect() {
        var machine = Machine()
        #expect(machine.start(addresses: nil) == .resolve)
        #expect(machine.resolved(.success([Self.first, Self.second])) == .connect(Self.first))
        #expect(machine.attemptConnected() == .handshake)
        #expect(machine.handshakeFinished() == .succeed)
        #expect(machine.state == .connected)
        #expect(machine.isFinished)
    }

    @Test("An IP literal needs no lookup; a literal that does not resolve fails at once")
    func literals() {
        var machine = Machine()
        #expect(machine.start(addresses: .success([Self.first])) == .connect(Self.first))
        var broken = Machine()
        #expect(
            broken.start(addresses: .failure(.hostNotFound("bad literal")))
                == .fail(.couldNotConnect(.hostNotFound("bad literal"))))
        #expect(broken.isFinished)
    }

    @Test("Each failed or timed-out address moves on to the next; after the last, the last failure is the connector's")
    func addressesInTurn() {
        var machine = Machine()
        #expect(machine.start(addresses: .success([Self.first, Self.second])) == .connect(Self.first))
        #expect(machine.attemptFailed(.system(POSIXError(.ECONNREFUSED))) == .connect(Self.second))
        #expect(machine.attemptTimedOut() == .fail(.couldNotConnect(.timedOut)))
        var refused = Machine()
        #expect(refused.start(addresses: .success([Self.first])) == .connect(Self.first))
        #expect(
            refused.attemptFailed(.system(POSIXError(.ECONNREFUSED)))
                == .fail(.couldNotConnect(.system(POSIXError(.ECONNREFUSED)))))
    }

    @Test("A lookup that finds nothing, a failed or stalled handshake, the deadline and a cancellation each fail")
    func failures() {
        var empty = Machine()
        #expect(empty.start(addresses: nil) == .resolve)
        #expect(empty.resolved(.success([])) == .fail(.couldNotConnect(.hostNotFound("no address"))))
        var handshake = Machine()
        #expect(handshake.start(addresses: .success([Self.first])) == .connect(Self.first))
        #expect(handshake.attemptConnected() == .handshake)
        #expect(handshake.handshakeFailed() == .fail(.handshakeFailed))
        var stalled = Machine()
        #expect(stalled.start(addresses: .success([Self.first])) == .connect(Self.first))
        #expect(stalled.attemptConnected() == .handshake)
        #expect(stalled.handshakeTimedOut() == .fail(.handshakeTimedOut))
        var late = Machine()
        #expect(late.start(addresses: nil) == .resolve)
        #expect(late.deadlinePassed() == .fail(.requestTimedOut))
        var cancelled = Machine()
        #expect(cancelled.start(addresses: .success([Self.first])) == .connect(Self.first))
        #expect(cancelled.cancelled() == .fail(.cancelled))
    }

    @Test("What comes after the end (a late lookup, a timer that fired as it gave up) changes nothing")
    func afterTheEnd() {
        var machine = Machine()
        #expect(machine.start(addresses: nil) == .resolve)
        #expect(machine.deadlinePassed() == .fail(.requestTimedOut))
        #expect(machine.resolved(.success([Self.first])) == .none)
        #expect(machine.attemptTimedOut() == .none)
        #expect(machine.handshakeTimedOut() == .none)
        #expect(machine.cancelled() == .none)
        #expect(machine.state == .failed)
    }

    @Test("An event the state cannot take is a fault the machine reports: a debug build stops at it")
    func impossibleEventStops() async {
        await #expect(processExitsWith: .failure) {
            var machine = ConnectorStateMachine()
            let actions = [machine.start(addresses: nil), machine.handshakeFinished()]
            print(actions)
        }
    }
}
