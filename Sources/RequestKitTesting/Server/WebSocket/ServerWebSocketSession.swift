import Foundation
import RequestKit

/// The WebSocket conversation of one ``TestServer`` connection after its `101`: the server's end of the
/// connection state machine, fed by the connection's reads, running every action the machine returns and playing
/// the route's ``TestWebSocketStep``s. Messages are taken as they are delivered, so the inbound queue never fills.
///
/// Touched only on the connection's loop.
///
/// ```swift
/// let session = ServerWebSocketSession(connection: self, plan: plan, compression: agreed)
/// session.start()
/// session.received(bytes)
/// ```
final class ServerWebSocketSession {
    private unowned let connection: ServerConnection
    private var machine: WebSocketConnectionStateMachine
    private var steps: [TestWebSocketStep]
    private var nextStep = 0
    private var isWaitingForMessage = false
    private var isEchoing = false
    private var hasEnded = false
    private var stepTimer: LoopTimer?
    private var closeTimer: LoopTimer?

    init(connection: ServerConnection, plan: TestWebSocketPlan, compression: PerMessageDeflateParameters?) {
        self.connection = connection
        steps = plan.steps
        let limit = connection.core.configuration.maxBodyBytes
        // The client has as long to answer the server's close as to send a request: a test server is never the one
        // that gives up first on a loaded machine.
        machine = WebSocketConnectionStateMachine(
            role: .server,
            configuration: WebSocket.Configuration(
                maxMessageBytes: limit, maxFrameBytes: limit,
                closeTimeout: connection.core.configuration.readTimeout, compression: nil),
            compression: compression)
    }

    /// Plays the steps up to the first that waits.
    func start() {
        run(machine.opened())
        advance()
    }

    /// Bytes the client sent.
    func received(_ bytes: some Sequence<UInt8>) {
        machine.received(bytes)
        while !hasEnded {
            let action = machine.processReceived()
            if action == .none { return }
            run(action)
        }
    }

    /// The client closed its side (or the connection failed).
    func inputEnded(failed: Bool) {
        run(failed ? machine.streamFailed() : machine.inputEnded())
    }

    /// The connection closed: no timer may fire any more.
    func connectionClosed() {
        hasEnded = true
        cancelTimers()
    }

    private func run(_ action: WebSocketConnectionStateMachine.Action) {
        switch action {
        case .none:
            break
        case .write(let data):
            connection.enqueue(data)
        case .deliver(let message):
            connection.core.recordWebSocketEvent(.message(message))
            run(machine.messageConsumed(byteCount: message.byteCount))
            if isEchoing { send(message) }
            if isWaitingForMessage {
                isWaitingForMessage = false
                advance()
            }
        case .pauseReading, .resumeReading:
            // Each message is consumed as it is delivered: the queue is never full for long enough to matter.
            break
        case .schedulePing, .sendPing:
            // The server's end sends no keep-alive pings (its configuration has no interval).
            break
        case .sendClose(let frame, let timeout):
            connection.enqueue(frame)
            armCloseTimer(timeout)
        case .replyToClose(let frame, let ending, let timeout):
            connection.enqueue(frame)
            record(ending)
            armCloseTimer(timeout)
        case .endMessages(let ending):
            record(ending)
        case .close(let frame, let ending):
            if let frame { connection.enqueue(frame) }
            if let ending { record(ending) }
            hasEnded = true
            cancelTimers()
            connection.webSocketEnded()
        }
    }

    private func record(_ ending: WebSocketEnding) {
        let event: TestWebSocketEvent
        switch ending {
        case .closed(let code, let reason):
            event = .closed(code, reason: reason)
        case .failed(let record, _) where record.failure == .closedByServer:
            event = .closed(record.closeCode ?? .noStatusReceived, reason: record.closeReason ?? "")
        case .failed(let record, _) where record.failure == .connectionLost:
            event = .disconnected
        case .failed(let record, _):
            event = .failed(record.message)
        case .cancelled, .streamFailed:
            event = .disconnected
        }
        connection.core.recordWebSocketEvent(event)
    }

    private func send(_ message: WebSocketMessage) {
        // Once the machine is closing, nothing more is sent: the step is dropped, as a closing server would.
        if let action = try? machine.send(message) { run(action) }
    }

    private func armCloseTimer(_ timeout: Duration) {
        if let closeTimer { connection.loop.cancel(closeTimer) }
        closeTimer = connection.loop.schedule(after: timeout.timeInterval) { [self] in
            closeTimer = nil
            run(machine.closeTimerFired())
        }
    }

    private func cancelTimers() {
        if let stepTimer { connection.loop.cancel(stepTimer) }
        if let closeTimer { connection.loop.cancel(closeTimer) }
        stepTimer = nil
        closeTimer = nil
    }

    /// Plays steps until one waits (a pause, a message to receive) or they run out.
    private func advance() {
        while !hasEnded, stepTimer == nil, !isWaitingForMessage, nextStep < steps.count {
            let step = steps[nextStep]
            nextStep += 1
            switch step {
            case .send(let message):
                send(message)
            case .ping(let payload):
                connection.enqueue(
                    TestWebSocketStep.frameBytes(
                        opcode: 0x9, payload: payload, isFinal: true, reservedBits: 0, isMasked: false))
            case .receive:
                isWaitingForMessage = true
            case .echo:
                isEchoing = true
            case .close(let code, let reason):
                do {
                    run(try machine.close(code, reason: reason))
                } catch {
                    // A code or reason the protocol forbids goes out as it is, for the client to refuse.
                    var payload = Data([
                        UInt8(truncatingIfNeeded: code.code >> 8), UInt8(truncatingIfNeeded: code.code),
                    ])
                    payload.append(contentsOf: reason.utf8)
                    connection.enqueue(
                        TestWebSocketStep.frameBytes(
                            opcode: 0x8, payload: payload, isFinal: true, reservedBits: 0, isMasked: false))
                }
            case .pause(let duration):
                stepTimer = connection.loop.schedule(after: duration.timeInterval) { [self] in
                    stepTimer = nil
                    advance()
                }
            case .frame(let opcode, let payload, let isFinal, let reservedBits, let isMasked):
                connection.enqueue(
                    TestWebSocketStep.frameBytes(
                        opcode: opcode, payload: payload, isFinal: isFinal, reservedBits: reservedBits,
                        isMasked: isMasked))
            case .raw(let bytes):
                connection.enqueue(bytes)
            case .trickle(let bytes, let interval):
                guard let first = bytes.first else { continue }
                let rest = bytes.dropFirst()
                steps.insert(
                    contentsOf: [.raw(Data([first]))]
                        + (rest.isEmpty ? [] : [.pause(interval), .trickle(Data(rest), interval: interval)]),
                    at: nextStep)
            case .disconnect:
                hasEnded = true
                cancelTimers()
                connection.shutDownSocket()
            }
        }
    }
}
