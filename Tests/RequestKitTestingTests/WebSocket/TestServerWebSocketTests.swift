import Foundation
import RequestKitTestSupport
import RequestKitTesting
import RequestKitWebSocket
import Testing

/// TestServer speaking WebSocket: the upgrade, the echo route, scripted routes and the hostile ones, driven by a
/// client written by hand whose frames a client-side state machine reads.
@Suite("TestServer WebSocket", .wallClock)
struct TestServerWebSocketTests {
    static let zeroKey: [UInt8] = [0, 0, 0, 0]

    static func clientMachine(_ agreement: WebSocketHandshake.Agreement?) -> WebSocketConnectionStateMachine {
        WebSocketConnectionStateMachine(
            role: .client, configuration: .init(), compression: agreement?.compression, maskingKeys: FixedMaskingKeys())
    }

    @Test("/websocket/echo upgrades with the accept value, echoes text and binary, and completes the close")
    func echo() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await RawWebSocketClient.open(server, path: "/websocket/echo")
        #expect(client.answer.status == 101)
        #expect(client.agreement == WebSocketHandshake.Agreement())
        try await client.send(FrameBytes.text("hello", key: [1, 2, 3, 4]))
        #expect(try await client.readFrame() == FrameBytes.text("hello"))
        try await client.send(
            FrameBytes.frame(0x2, [9, 8], fin: false, key: Self.zeroKey) + FrameBytes.frame(0x9, [7], key: Self.zeroKey)
                + FrameBytes.continuation([7], key: Self.zeroKey))
        #expect(try await client.readFrame() == FrameBytes.frame(0xA, [7]))
        #expect(try await client.readFrame() == FrameBytes.frame(0x2, [9, 8, 7]))
        try await client.send(FrameBytes.close(1000, "bye", key: Self.zeroKey))
        #expect(try await client.readFrame() == FrameBytes.close(1000))
        #expect(await client.connection.isClosedByServer())
        #expect(
            server.webSocketEvents == [
                .message(.text("hello")), .message(.binary(Data([9, 8, 7]))), .closed(.normalClosure, reason: "bye"),
            ])
        #expect(server.requests.map(\.path) == ["/websocket/echo"])
    }

    @Test("the echo takes permessage-deflate: a compressed message comes back compressed")
    func compressedEcho() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await RawWebSocketClient.open(
            server, path: "/websocket/echo", compression: WebSocket.Compression(clientNoContextTakeover: true))
        #expect(client.answer.header("Sec-WebSocket-Extensions") == "permessage-deflate; client_no_context_takeover")
        var machine = Self.clientMachine(client.agreement)
        let text = String(repeating: "compress me, ", count: 50)
        for _ in 0..<2 {
            guard case .write(let frame) = try machine.send(.text(text)) else {
                Issue.record("nothing to write")
                return
            }
            #expect(frame.count < 100)
            try await client.send(Array(frame))
            let echoed = try await client.readFrame()
            #expect(echoed[0] == 0xC1)
            let delivered = machine.feed(echoed)
            #expect(delivered == [.deliver(.text(text))])
            _ = machine.messageConsumed(byteCount: text.utf8.count)
        }
        #expect(server.webSocketEvents == [.message(.text(text)), .message(.text(text))])
    }

    @Test("a request that is not a valid upgrade is refused with a status that says why")
    func refusals() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let cases: [(fields: [(String, String?)], status: Int, text: String)] = [
            ([("Sec-WebSocket-Key", nil)], 400, "Sec-WebSocket-Key must be 16 bytes in base64"),
            ([("Sec-WebSocket-Key", "c2hvcnQ=")], 400, "Sec-WebSocket-Key must be 16 bytes in base64"),
            ([("Upgrade", "h2c")], 400, "a WebSocket handshake needs Upgrade: websocket"),
            ([("Connection", "keep-alive")], 400, "a WebSocket handshake needs Connection: Upgrade"),
            ([("Sec-WebSocket-Version", "8")], 426, "only WebSocket version 13 is spoken"),
        ]
        for (fields, status, text) in cases {
            let client = try await RawWebSocketClient.open(server, path: "/websocket/echo", replacingFields: fields)
            #expect(client.answer.status == status)
            #expect(String(decoding: client.answer.body, as: UTF8.self) == text)
            if status == 426 { #expect(client.answer.header("Sec-WebSocket-Version") == "13") }
        }
        #expect(server.webSocketEvents.isEmpty)
    }

    @Test("a custom route plays its steps: waits for the client, answers, closes with its code")
    func scriptedRoute() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/feed") { _ in
            .webSocket(
                [.receive, .send(.text("subscribed")), .ping(Data("hi".utf8)), .close(.goingAway, reason: "done")],
                subprotocol: "feed.v1", headers: [("X-Feed", "1")])
        }
        let client = try await RawWebSocketClient.open(server, path: "/feed", subprotocols: ["feed.v1"])
        #expect(client.agreement?.subprotocol == "feed.v1")
        #expect(client.answer.header("X-Feed") == "1")
        try await client.send(FrameBytes.text("subscribe", key: Self.zeroKey))
        #expect(try await client.readFrame() == FrameBytes.text("subscribed"))
        #expect(try await client.readFrame() == FrameBytes.frame(0x9, Array("hi".utf8)))
        #expect(try await client.readFrame() == FrameBytes.close(1001, "done"))
        try await client.send(FrameBytes.close(1001, key: Self.zeroKey))
        #expect(await client.connection.isClosedByServer())
        #expect(server.webSocketEvents == [.message(.text("subscribe")), .closed(.goingAway, reason: "")])
    }

    @Test("a client that breaks a rule gets a 1002 close naming it, and the server records what it broke")
    func clientBreaksARule() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await RawWebSocketClient.open(server, path: "/websocket/echo")
        try await client.send(FrameBytes.text("unmasked"))
        let rule = "the client sent an unmasked frame; a client's frames are always masked"
        #expect(try await client.readFrame() == FrameBytes.close(1002, rule))
        #expect(await client.connection.isClosedByServer())
        #expect(server.webSocketEvents == [.failed(rule)])
    }

    @Test("/websocket/stream and /websocket/close send their messages and close frames")
    func streamAndClose() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let stream = try await RawWebSocketClient.open(server, path: "/websocket/stream?count=3&size=4")
        for _ in 0..<3 { #expect(try await stream.readFrame() == FrameBytes.frame(0x2, [0, 0, 0, 0])) }
        #expect(try await stream.readFrame() == FrameBytes.close(1000))
        let close = try await RawWebSocketClient.open(server, path: "/websocket/close?code=4001&reason=expired")
        #expect(try await close.readFrame() == FrameBytes.close(4001, "expired"))
        let refused = try await RawWebSocketClient.open(server, path: "/websocket/close?code=1005")
        #expect(refused.answer.status == 400)
    }

    /// A hostile route and the violation a client machine must find in what it sends.
    static let hostile: [(path: String, frames: Int, violation: WebSocketViolation)] = [
        (
            "long-control", 1,
            .protocolViolation("the server sent a ping frame of more than 125 bytes; control frames carry at most 125")
        ),
        (
            "fragmented-control", 1,
            .protocolViolation("the server sent a fragmented control frame (a ping without FIN)")
        ),
        (
            "bad-close-code", 1,
            .protocolViolation("the server closed with the code 1005, which no close frame may carry")
        ),
        (
            "bad-close-code?code=2999", 1,
            .protocolViolation("the server closed with the code 2999, which no close frame may carry")
        ),
        ("reserved-opcode", 1, .protocolViolation("the server sent a frame with the reserved opcode 0x3")),
        ("reserved-bits", 1, .protocolViolation("the server sent a frame with the reserved bit RSV2 set")),
        ("masked", 1, .protocolViolation("the server sent a masked frame; a server's frames are never masked")),
        ("invalid-utf8", 2, .invalidUTF8("the server sent a text message that is not UTF-8")),
    ]

    @Test("each hostile route breaks its rule, and a client machine fails on it", arguments: hostile)
    func hostileRoutes(_ hostile: (path: String, frames: Int, violation: WebSocketViolation)) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = try await RawWebSocketClient.open(server, path: "/websocket/hostile/\(hostile.path)")
        var machine = Self.clientMachine(client.agreement)
        var actions: [WebSocketConnectionStateMachine.Action] = []
        for _ in 0..<hostile.frames { actions += machine.feed(try await client.readFrame()) }
        #expect(
            actions == [
                .close(
                    writingFirst: FrameBytes.maskedClose(hostile.violation.closeCode.code, hostile.violation.message),
                    ending: .failed(hostile.violation.record, kind: .webSocket))
            ])
    }

    @Test("the hostile oversized frame announces 2^40 bytes; the compression bomb inflates past the ratio")
    func hostileSizes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let oversized = try await RawWebSocketClient.open(server, path: "/websocket/hostile/oversized-frame")
        let head = Array(try await oversized.connection.read(count: 10))
        #expect(head == [0x82, 0x7F, 0, 0, 0x01, 0, 0, 0, 0, 0])
        let bomb = try await RawWebSocketClient.open(
            server, path: "/websocket/hostile/compression-bomb?bytes=4194304", compression: WebSocket.Compression())
        var machine = Self.clientMachine(bomb.agreement)
        let frame = try await bomb.readFrame()
        #expect(frame.count < 8 * 1024)
        let message = "a compressed message from the server expands more than 100 times"
        let actions = machine.feed(frame)
        #expect(
            actions == [
                .close(
                    writingFirst: FrameBytes.maskedClose(1009, message),
                    ending: .failed(WebSocketViolation.tooLarge(message).record, kind: .webSocket))
            ])
        var lenient = WebSocketConnectionStateMachine(
            role: .client, configuration: .init(maxDecompressionRatio: 10_000), compression: bomb.agreement?.compression
        )
        let inflated = lenient.feed(frame)
        #expect(inflated == [.deliver(.binary(Data(count: 4 << 20)))])
    }

    @Test("hostile floods, trickles and endings: every ping comes, each byte in turn, then no closing handshake")
    func hostileTimings() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let flood = try await RawWebSocketClient.open(server, path: "/websocket/hostile/ping-flood?count=2500")
        let bytes = Array(try await flood.connection.read(count: 2500 * 127))
        let ping: [UInt8] = [0x89, 0x7D] + [UInt8](repeating: 0, count: 125)
        #expect(bytes == Array(repeating: ping, count: 2500).flatMap { $0 })
        #expect(try await flood.readFrame() == FrameBytes.text("after the flood"))
        let trickle = try await RawWebSocketClient.open(server, path: "/websocket/hostile/trickle?interval=1")
        #expect(try await trickle.readFrame() == FrameBytes.text("trickled"))
        let ending = try await RawWebSocketClient.open(server, path: "/websocket/hostile/no-close")
        #expect(try await ending.readFrame() == FrameBytes.text("goodbye"))
        #expect(await ending.connection.isClosedByServer())
        #expect(await server.waitForWebSocketEvents(count: 1))
        #expect(server.webSocketEvents == [.disconnected])
    }
}
