import Foundation
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitWebSocket

/// A connection's decisions, event by event, with no socket and no clock: each table is a script of events, the
/// actions each must return, in order, and the state it must leave. A client's frames are masked with the zero key,
/// so that the bytes it writes read as they mean.
@Suite("WebSocket connection state machine")
struct WebSocketConnectionStateMachineTests {
    typealias Machine = WebSocketConnectionStateMachine
    typealias Action = Machine.Action

    /// One event of a table.
    enum Event {
        case bytes([UInt8])
        case opened
        case send(WebSocketMessage)
        case close(WebSocketCloseCode, String)
        case consumed(bytes: Int)
        case pingTimer, closeTimer, inputEnded, streamFailed, cancelled
    }

    /// An event, the actions it must return and the state after it.
    struct Step {
        let event: Event
        let actions: [Action]
        let state: Machine.State

        init(_ event: Event, _ actions: [Action], _ state: Machine.State = .open) {
            self.event = event
            self.actions = actions
            self.state = state
        }
    }

    static let zeroKey: [UInt8] = [0, 0, 0, 0]
    static let closeTimeout = Duration.seconds(10)

    /// A frame as a client writes it (masked with the zero key).
    static func written(_ opcode: UInt8, _ payload: [UInt8]) -> Data {
        Data(FrameBytes.frame(opcode, payload, key: zeroKey))
    }

    static func failed(
        _ failure: RequestError.WebSocketFailure, _ message: String, kind: RequestError.Kind = .webSocket,
        code: WebSocketCloseCode? = nil, reason: String? = nil
    ) -> WebSocketEnding {
        .failed(
            WebSocketFailureRecord(failure: failure, message: message, closeCode: code, closeReason: reason), kind: kind
        )
    }

    /// The action of a client failing the connection for a broken rule.
    static func failing(_ violation: WebSocketViolation) -> Action {
        .close(
            writingFirst: FrameBytes.maskedClose(violation.closeCode.code, violation.message),
            ending: .failed(violation.record, kind: .webSocket))
    }

    @discardableResult
    static func run(
        _ steps: [Step], role: WebSocketRole = .client, configuration: WebSocket.Configuration = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Machine {
        var machine = Machine(
            role: role, configuration: configuration, compression: nil, maskingKeys: FixedMaskingKeys())
        for (index, step) in steps.enumerated() {
            let comment = Comment(rawValue: "step \(index + 1): \(step.event)")
            var actions: [Action]
            switch step.event {
            case .bytes(let bytes): actions = machine.feed(bytes)
            case .opened: actions = [machine.opened()]
            case .send(let message):
                do {
                    actions = [try machine.send(message)]
                } catch {
                    actions = []
                    Issue.record(error, comment, sourceLocation: sourceLocation)
                }
            case .close(let code, let reason):
                do {
                    actions = [try machine.close(code, reason: reason)]
                } catch {
                    actions = []
                    Issue.record(error, comment, sourceLocation: sourceLocation)
                }
            case .consumed(let bytes): actions = [machine.messageConsumed(byteCount: bytes)]
            case .pingTimer: actions = [machine.pingTimerFired()]
            case .closeTimer: actions = [machine.closeTimerFired()]
            case .inputEnded: actions = [machine.inputEnded()]
            case .streamFailed: actions = [machine.streamFailed()]
            case .cancelled: actions = [machine.cancelled()]
            }
            actions.removeAll { $0 == .none }
            #expect(actions == step.actions, comment, sourceLocation: sourceLocation)
            #expect(machine.state == step.state, comment, sourceLocation: sourceLocation)
        }
        return machine
    }

    // MARK: Messages in

    @Test("whole messages are delivered as they arrive, several from one read")
    func wholeMessages() {
        Self.run([
            Step(.opened, []),
            Step(
                .bytes(FrameBytes.text("Hello") + FrameBytes.frame(0x2, [1, 2, 3]) + FrameBytes.text("")),
                [.deliver(.text("Hello")), .deliver(.binary(Data([1, 2, 3]))), .deliver(.text(""))]),
        ])
    }

    @Test("a fragmented message is delivered whole; a ping between its fragments is answered at once")
    func fragmentedWithPing() {
        Self.run([
            Step(.bytes(FrameBytes.text("Hel", fin: false)), []),
            Step(
                .bytes(FrameBytes.frame(0x9, Array("are you there".utf8))),
                [.write(Self.written(0xA, Array("are you there".utf8)))]),
            Step(.bytes(FrameBytes.continuation(Array("l".utf8), fin: false)), []),
            Step(.bytes(FrameBytes.continuation(Array("o".utf8))), [.deliver(.text("Hello"))]),
        ])
    }

    @Test("a message fed one byte at a time is delivered once, whole")
    func byteByByte() {
        var machine = Machine(role: .client, configuration: .init(), compression: nil)
        let bytes =
            FrameBytes.text("κό", fin: false) + FrameBytes.frame(0xA, []) + FrameBytes.continuation(Array("σμε".utf8))
        var actions: [Action] = []
        for byte in bytes { actions += machine.feed([byte]) }
        #expect(actions == [.deliver(.text("κόσμε"))])
    }

    @Test("a UTF-8 sequence split across fragments is valid")
    func sequenceAcrossFragments() {
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        Self.run([
            Step(.bytes(FrameBytes.frame(0x1, [0x41, euro[0]], fin: false)), []),
            Step(.bytes(FrameBytes.continuation([euro[1]], fin: false)), []),
            Step(.bytes(FrameBytes.continuation([euro[2]])), [.deliver(.text("A€"))]),
        ])
    }

    /// A broken stream from a server and the violation it must end in.
    struct Broken: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: [[UInt8]]
        let violation: WebSocketViolation
        var configuration = WebSocket.Configuration()
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(
            name: "a continuation with nothing to continue", bytes: [FrameBytes.continuation([1])],
            violation: .protocolViolation("the server sent a continuation frame with no fragmented message to continue")
        ),
        Broken(
            name: "a new message inside a fragmented one",
            bytes: [FrameBytes.text("a", fin: false), FrameBytes.frame(0x2, [1])],
            violation: .protocolViolation(
                "the server began a new binary message before the fragmented one in progress ended")),
        Broken(
            name: "invalid UTF-8 in a middle fragment, before the last arrives",
            bytes: [FrameBytes.text("ok", fin: false), FrameBytes.continuation([0xF4, 0x90], fin: false)],
            violation: .invalidUTF8("the server sent a text message that is not UTF-8")),
        Broken(
            name: "invalid UTF-8 early in a frame whose rest has not arrived",
            bytes: [
                Array(FrameBytes.frame(0x1, Array("abc".utf8) + [0xED, 0xA0, 0x80] + Array("def".utf8)).prefix(7))
            ],
            violation: .invalidUTF8("the server sent a text message that is not UTF-8")),
        Broken(
            name: "text that ends inside a sequence", bytes: [FrameBytes.frame(0x1, [0x41, 0xE2, 0x82])],
            violation: .invalidUTF8("the server sent a text message that ends inside a UTF-8 sequence")),
        Broken(
            name: "fragments adding up past the message limit, told by the second head",
            bytes: [FrameBytes.frame(0x2, [UInt8](repeating: 1, count: 60), fin: false), [0x80, 0x7E, 0x00, 0x80]],
            violation: .tooLarge("the server sent a message of more than 100 bytes, the limit"),
            configuration: .init(maxMessageBytes: 100)),
        Broken(
            name: "a frame past the frame limit", bytes: [[0x82, 0x7E, 0x01, 0x00]],
            violation: .tooLarge("the server sent a frame of 256 bytes, over the limit of 255 bytes"),
            configuration: .init(maxFrameBytes: 255)),
        Broken(
            name: "a close frame of one byte", bytes: [FrameBytes.frame(0x8, [0x03])],
            violation: .protocolViolation("the server sent a close frame of one byte; a close code takes two")),
        Broken(
            name: "a close reason that is not UTF-8", bytes: [FrameBytes.frame(0x8, [0x03, 0xE8, 0xFF])],
            violation: .invalidUTF8("the server sent a close reason that is not UTF-8")),
        Broken(
            name: "a ping of 126 bytes", bytes: [FrameBytes.frame(0x9, [UInt8](repeating: 0, count: 126))],
            violation: .protocolViolation(
                "the server sent a ping frame of more than 125 bytes; control frames carry at most 125")),
        Broken(
            name: "a masked frame", bytes: [FrameBytes.text("x", key: [1, 2, 3, 4])],
            violation: .protocolViolation("the server sent a masked frame; a server's frames are never masked")),
        Broken(
            name: "a fragmented close", bytes: [FrameBytes.frame(0x8, [0x03, 0xE8], fin: false)],
            violation: .protocolViolation("the server sent a fragmented control frame (a close without FIN)")),
    ]

    @Test("a broken rule closes with its code and what was broken, and nothing after it is read", arguments: broken)
    func violations(_ broken: Broken) {
        var steps = broken.bytes.dropLast().map { Step(.bytes($0), []) }
        steps.append(Step(.bytes(broken.bytes[broken.bytes.count - 1]), [Self.failing(broken.violation)], .closed))
        steps.append(Step(.bytes(FrameBytes.text("after")), [], .closed))
        steps.append(Step(.inputEnded, [], .closed))
        Self.run(steps, configuration: broken.configuration)
    }

    static let invalidCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]

    @Test("a close code no close frame may carry is a protocol error", arguments: invalidCodes)
    func invalidCloseCodes(_ code: UInt16) {
        Self.run([
            Step(
                .bytes(FrameBytes.close(code)),
                [
                    Self.failing(
                        .protocolViolation("the server closed with the code \(code), which no close frame may carry"))
                ],
                .closed)
        ])
    }

    @Test("the close reason the failure sends back is cut to 123 bytes at a character's end")
    func closeReasonIsCut() {
        let long = String(repeating: "é", count: 100)
        #expect(Machine.closeReason(long).utf8.count == 122)
        #expect(Machine.closeReason("short") == "short")
    }

    // MARK: Closing

    @Test("the server closes normally: the close is answered, the messages end, and the client waits for TCP's end")
    func serverClosesNormally() {
        Self.run([
            Step(
                .bytes(FrameBytes.close(1000, "bye")),
                [
                    .replyToClose(
                        FrameBytes.maskedClose(1000), ending: .closed(.normalClosure, reason: "bye"),
                        timeout: Self.closeTimeout)
                ],
                .awaitingEnd),
            Step(.bytes(FrameBytes.text("late")), [], .awaitingEnd),
            Step(.inputEnded, [.close(writingFirst: nil, ending: nil)], .closed),
            Step(.closeTimer, [], .closed),
        ])
    }

    @Test("the server closes with an error code: the messages end in an error carrying its code and reason")
    func serverClosesWithError() {
        let ending = Self.failed(
            .closedByServer, "the server closed the connection with 1011 (internal error): \"db down\"",
            code: .internalError, reason: "db down")
        Self.run([
            Step(
                .bytes(FrameBytes.close(1011, "db down")),
                [.replyToClose(FrameBytes.maskedClose(1011), ending: ending, timeout: Self.closeTimeout)], .awaitingEnd),
            Step(.closeTimer, [.close(writingFirst: nil, ending: nil)], .closed),
        ])
        let error = ending.error
        #expect(error?.kind == .webSocket)
        #expect(error?.webSocketFailure == .closedByServer)
        #expect(error?.webSocketCloseCode == .internalError)
        #expect(error?.webSocketCloseReason == "db down")
        #expect(
            error?.description == "webSocket (the server closed the connection with 1011 (internal error): \"db down\")"
        )
    }

    @Test("a close without a code ends quietly with 1005, answered with an empty close; going away ends quietly too")
    func closeWithoutCode() {
        Self.run([
            Step(
                .bytes(FrameBytes.frame(0x8, [])),
                [
                    .replyToClose(
                        Self.written(0x8, []), ending: .closed(.noStatusReceived, reason: ""),
                        timeout: Self.closeTimeout)
                ],
                .awaitingEnd)
        ])
        Self.run([
            Step(
                .bytes(FrameBytes.close(1001)),
                [
                    .replyToClose(
                        FrameBytes.maskedClose(1001), ending: .closed(.goingAway, reason: ""),
                        timeout: Self.closeTimeout)
                ],
                .awaitingEnd)
        ])
    }

    @Test("every registered and private code a close frame may carry is taken")
    func validCloseCodes() throws {
        for code: UInt16 in [
            1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999,
        ] {
            var machine = Machine(
                role: .client, configuration: .init(), compression: nil, maskingKeys: FixedMaskingKeys())
            let actions = machine.feed(FrameBytes.close(code))
            guard case .replyToClose(let answer, _, _) = actions.first else {
                Issue.record("\(code): \(actions)")
                continue
            }
            #expect(answer == FrameBytes.maskedClose(code))
        }
    }

    @Test("the client closes: messages still arrive, pings go unanswered, the answer ends the messages")
    func clientCloses() throws {
        var machine = Self.run([
            Step(
                .close(.normalClosure, "done"),
                [.sendClose(FrameBytes.maskedClose(1000, "done"), timeout: Self.closeTimeout)], .closing),
            Step(.bytes(FrameBytes.text("still")), [.deliver(.text("still"))], .closing),
            Step(.bytes(FrameBytes.frame(0x9, [7])), [], .closing),
            Step(.close(.goingAway, "again"), [], .closing),
        ])
        #expect(throws: RequestError.self) { try machine.send(.text("late")) }
        let rest = machine.feed(FrameBytes.close(1000))
        #expect(rest == [.endMessages(.closed(.normalClosure, reason: ""))])
        #expect(machine.state == .awaitingEnd)
        let end = machine.inputEnded()
        #expect(end == .close(writingFirst: nil, ending: nil))
        #expect(machine.state == .closed)
    }

    @Test("a rule broken after this end's close fails without a second close frame")
    func violationWhileClosing() {
        let violation = WebSocketViolation.protocolViolation(
            "the server closed with the code 1005, which no close frame may carry")
        Self.run([
            Step(
                .close(.normalClosure, ""),
                [.sendClose(FrameBytes.maskedClose(1000), timeout: Self.closeTimeout)], .closing),
            Step(
                .bytes(FrameBytes.close(1005)),
                [.close(writingFirst: nil, ending: .failed(violation.record, kind: .webSocket))], .closed),
        ])
    }

    @Test("an unanswered close times out; a connection lost before any close is abnormal")
    func closeTimeoutAndLoss() {
        Self.run([
            Step(
                .close(.normalClosure, ""), [.sendClose(FrameBytes.maskedClose(1000), timeout: Self.closeTimeout)],
                .closing),
            Step(
                .closeTimer,
                [
                    .close(
                        writingFirst: nil,
                        ending: Self.failed(
                            .closeTimeout, "the server did not answer the close frame within 10.0 seconds",
                            kind: .timedOut))
                ],
                .closed),
        ])
        Self.run([
            Step(.bytes(FrameBytes.text("Hel", fin: false)), []),
            Step(
                .inputEnded,
                [
                    .close(
                        writingFirst: nil,
                        ending: Self.failed(
                            .connectionLost,
                            "the server closed the connection without a closing handshake in the middle of a message",
                            code: .abnormalClosure))
                ],
                .closed),
        ])
    }

    @Test("a close the protocol forbids is refused before anything is sent")
    func invalidClose() throws {
        var machine = Machine(role: .client, configuration: .init(), compression: nil)
        #expect(throws: RequestError.self) { try machine.close(.noStatusReceived, reason: "") }
        #expect(throws: RequestError.self) {
            try machine.close(.normalClosure, reason: String(repeating: "a", count: 124))
        }
        #expect(machine.state == .open)
        let longest = try machine.close(.normalClosure, reason: String(repeating: "a", count: 123))
        #expect(longest != .none)
    }

    @Test("cancellation closes at once with going away; a failed stream closes without a frame")
    func cancellationAndFailure() {
        Self.run([Step(.cancelled, [.close(writingFirst: FrameBytes.maskedClose(1001), ending: .cancelled)], .closed)])
        Self.run([
            Step(.streamFailed, [.close(writingFirst: nil, ending: .streamFailed)], .closed),
            Step(.cancelled, [], .closed),
        ])
    }

    // MARK: Keep-alive and backpressure

    @Test("keep-alive pings go out each interval; a ping with no pong by the next ends the connection as timed out")
    func keepAlive() {
        let ping1: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 1]
        let ping2: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 2]
        Self.run(
            [
                Step(.opened, [.schedulePing(after: .seconds(20))]),
                Step(.pingTimer, [.sendPing(Self.written(0x9, ping1), checkAfter: .seconds(20))]),
                Step(.bytes(FrameBytes.frame(0xA, ping2)), []),
                Step(.bytes(FrameBytes.frame(0xA, ping1)), []),
                Step(.pingTimer, [.sendPing(Self.written(0x9, ping2), checkAfter: .seconds(20))]),
                Step(
                    .pingTimer,
                    [
                        .close(
                            writingFirst: FrameBytes.maskedClose(1001, "keep-alive ping timeout"),
                            ending: Self.failed(
                                .pingTimeout, "the server did not answer a keep-alive ping within 20.0 seconds",
                                kind: .timedOut))
                    ],
                    .closed),
            ], configuration: .init(pingInterval: .seconds(20)))
    }

    @Test("no pings without an interval")
    func noKeepAlive() {
        Self.run([Step(.opened, []), Step(.pingTimer, [])])
    }

    @Test("a full queue pauses reading; the consumer catching up resumes it; a paused reader's ping waits")
    func backpressureByCount() {
        Self.run(
            [
                Step(
                    .bytes(FrameBytes.text("a") + FrameBytes.text("b") + FrameBytes.text("c")),
                    [.deliver(.text("a")), .deliver(.text("b")), .pauseReading]),
                Step(.bytes(FrameBytes.text("d")), []),
                Step(.pingTimer, [.sendPing(Self.written(0x9, [0, 0, 0, 0, 0, 0, 0, 1]), checkAfter: .seconds(5))]),
                Step(.pingTimer, [.schedulePing(after: .seconds(5))]),
                Step(.consumed(bytes: 1), [.resumeReading]),
                Step(.bytes([]), [.deliver(.text("c")), .pauseReading]),
                Step(.consumed(bytes: 1), [.resumeReading]),
                Step(.consumed(bytes: 1), []),
                Step(.bytes([]), [.deliver(.text("d"))]),
            ], configuration: .init(maxQueuedMessages: 2, pingInterval: .seconds(5)))
    }

    @Test("the input's end while reading is paused waits for what was read before it: a close frame there is a close")
    func inputEndsWhilePaused() {
        let read = ["a", "b", "c"].flatMap { FrameBytes.text($0) } + FrameBytes.close(1000, "bye")
        Self.run(
            [
                Step(.bytes(read), [.deliver(.text("a")), .deliver(.text("b")), .pauseReading]),
                Step(.inputEnded, []),
                Step(.consumed(bytes: 1), [.resumeReading]),
                Step(.bytes([]), [.deliver(.text("c")), .pauseReading]),
                Step(.consumed(bytes: 1), [.resumeReading]),
                Step(
                    .bytes([]),
                    [
                        .replyToClose(
                            FrameBytes.maskedClose(1000), ending: .closed(.normalClosure, reason: "bye"),
                            timeout: Self.closeTimeout),
                        .close(writingFirst: nil, ending: nil),
                    ], .closed),
                Step(.inputEnded, [], .closed),
            ], configuration: .init(maxQueuedMessages: 2))
    }

    @Test("the input's end while reading is paused, after part of a frame, is a connection lost once the rest is read")
    func inputEndsWhilePausedMidFrame() {
        let partial = Array(FrameBytes.text("cdef").prefix(4))
        Self.run(
            [
                Step(
                    .bytes(FrameBytes.text("a") + FrameBytes.text("b") + partial),
                    [.deliver(.text("a")), .deliver(.text("b")), .pauseReading]),
                Step(.inputEnded, []),
                Step(.consumed(bytes: 1), [.resumeReading]),
                Step(
                    .bytes([]),
                    [
                        .close(
                            writingFirst: nil,
                            ending: Self.failed(
                                .connectionLost,
                                "the server closed the connection without a closing handshake in the middle of a message",
                                code: .abnormalClosure))
                    ], .closed),
            ], configuration: .init(maxQueuedMessages: 2))
    }

    @Test("the queue's byte bound pauses reading too, after a message larger than it")
    func backpressureByBytes() {
        Self.run(
            [
                Step(
                    .bytes(FrameBytes.text("twelve bytes") + FrameBytes.text("x")),
                    [.deliver(.text("twelve bytes")), .pauseReading]),
                Step(.consumed(bytes: 12), [.resumeReading]),
                Step(.bytes([]), [.deliver(.text("x"))]),
            ], configuration: .init(maxQueuedBytes: 10))
    }

    // MARK: Messages out

    @Test("RFC 6455 §5.7: a client's masked \"Hello\", byte for byte")
    func sendsMasked() throws {
        var machine = Machine(
            role: .client, configuration: .init(), compression: nil, maskingKeys: FixedMaskingKeys(key: 0x37fa_213d))
        let hello = try machine.send(.text("Hello"))
        #expect(hello == .write(Data([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])))
    }

    @Test("RFC 6455 §5.7: a long message goes out in fragments of the configured size")
    func sendsFragments() throws {
        var server = Machine(role: .server, configuration: .init(outgoingFrameBytes: 3), compression: nil)
        let hello = try server.send(.text("Hello"))
        let empty = try server.send(.binary(Data()))
        #expect(hello == .write(Data([0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f])))
        #expect(empty == .write(Data([0x82, 0x00])))
        var client = Machine(
            role: .client, configuration: .init(outgoingFrameBytes: 2), compression: nil,
            maskingKeys: FixedMaskingKeys())
        let fragments = try client.send(.binary(Data([1, 2, 3])))
        #expect(fragments == .write(Data([0x02, 0x82, 0, 0, 0, 0, 1, 2, 0x80, 0x81, 0, 0, 0, 0, 3])))
    }

    @Test("each frame a client sends has a key of its own from the generator")
    func freshKeys() throws {
        var machine = Machine(
            role: .client, configuration: .init(), compression: nil, maskingKeys: SplitMix64(state: 9))
        guard case .write(let first) = try machine.send(.text("same")),
            case .write(let second) = try machine.send(.text("same"))
        else {
            Issue.record("nothing written")
            return
        }
        #expect(first.prefix(2) == second.prefix(2))
        #expect(first.dropFirst(2).prefix(4) != second.dropFirst(2).prefix(4))
    }

    // MARK: The server's end

    @Test("a server takes masked frames, answers a close and closes TCP itself, and sends unmasked frames")
    func serverRole() {
        let key: [UInt8] = [9, 8, 7, 6]
        Self.run(
            [
                Step(.bytes(FrameBytes.text("hi", key: key)), [.deliver(.text("hi"))]),
                Step(.send(.text("hey")), [.write(Data(FrameBytes.text("hey")))]),
                Step(
                    .bytes(FrameBytes.close(1000, "bye", key: key)),
                    [
                        .close(
                            writingFirst: Data(FrameBytes.close(1000)), ending: .closed(.normalClosure, reason: "bye"))
                    ],
                    .closed),
            ], role: .server)
        Self.run(
            [
                Step(
                    .close(.goingAway, ""), [.sendClose(Data(FrameBytes.close(1001)), timeout: Self.closeTimeout)],
                    .closing),
                Step(
                    .bytes(FrameBytes.close(1001, key: key)),
                    [.close(writingFirst: nil, ending: .closed(.goingAway, reason: ""))], .closed),
            ], role: .server)
        Self.run(
            [
                Step(
                    .bytes(FrameBytes.text("x")),
                    [
                        .close(
                            writingFirst: Data(
                                FrameBytes.close(
                                    1002, "the client sent an unmasked frame; a client's frames are always masked")),
                            ending: .failed(
                                WebSocketViolation.protocolViolation(
                                    "the client sent an unmasked frame; a client's frames are always masked"
                                ).record, kind: .webSocket))
                    ],
                    .closed)
            ], role: .server)
    }
}
