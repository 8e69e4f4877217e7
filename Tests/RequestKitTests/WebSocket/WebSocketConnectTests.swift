import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// `WebSocket { … }.connect()` end to end against TestServer's WebSocket routes on 127.0.0.1: the handshake as the
/// server saw it, messages both ways (plain and compressed), the closing handshake both ways, a refused handshake,
/// and each hostile server a typed error.
@Suite("WebSocket connect (wire)", .wallClock)
struct WebSocketConnectTests {
    @Test("the echo route: text and binary come back, close completes the handshake, the server saw the fields")
    func echo() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let jar = CookieJar()
        jar.store(ResponseCookie.parseAll("session=abc"), from: server.url("/"))
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/echo")
            Header.Any("X-Client", "tests")
            UseCookies(jar)
            WebSocket.Configuration(compression: nil)
            Timeout(30)
        }.connect()
        try await socket.send(.text("hello"))
        try await socket.send(.binary(Data([1, 2, 3])))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("hello"))
        #expect(try await iterator.next() == .binary(Data([1, 2, 3])))
        #expect(!socket.isCompressed)
        try await socket.close(.normalClosure, reason: "bye")
        #expect(try await iterator.next() == nil)
        #expect(await server.waitForWebSocketEvents(count: 3))
        #expect(
            server.webSocketEvents == [
                .message(.text("hello")), .message(.binary(Data([1, 2, 3]))), .closed(.normalClosure, reason: "bye"),
            ])
        let request = try #require(server.requests.first)
        #expect(request.path == "/websocket/echo")
        #expect(request.header("X-Client") == "tests")
        #expect(request.header("Cookie") == "session=abc")
        #expect(request.header("Upgrade") == "websocket")
        #expect(request.header("Sec-WebSocket-Version") == "13")
        #expect(request.header("Accept-Encoding") == nil)
    }

    @Test("permessage-deflate is offered by default: a long message goes and comes back compressed")
    func compressedEcho() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try await WebSocket { Url("ws://127.0.0.1:\(server.port)/websocket/echo") }.connect()
        #expect(socket.isCompressed)
        let text = String(repeating: "compress me, ", count: 5000)
        for _ in 0..<3 { try await socket.send(.text(text)) }
        var iterator = socket.messages.makeAsyncIterator()
        for _ in 0..<3 { #expect(try await iterator.next() == .text(text)) }
        try await socket.close()
        #expect(await server.waitForWebSocketEvents(count: 4))
        #expect(server.webSocketEvents.prefix(3).allSatisfy { $0 == .message(.text(text)) })
    }

    @Test("a route that does not upgrade is a handshakeRefused error with its status and body")
    func refused() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = await #expect(throws: RequestError.self) {
            _ = try await WebSocket { Url("ws://127.0.0.1:\(server.port)/websocket/nothing-here") }.connect()
        }
        #expect(error?.kind == .webSocket)
        #expect(error?.webSocketFailure == .handshakeRefused)
        #expect(error?.statusCode == 404)
        #expect(
            error?.response.map { String(decoding: $0.body, as: UTF8.self) } == "not found: /websocket/nothing-here")
    }

    @Test("a server's close with an error code ends the messages with that code and reason")
    func serverCloses() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/close?code=4001&reason=expired")
        }.connect()
        let error = await #expect(throws: RequestError.self) { for try await _ in socket.messages {} }
        #expect(error?.webSocketFailure == .closedByServer)
        #expect(error?.webSocketCloseCode == WebSocketCloseCode(4001))
        #expect(error?.webSocketCloseReason == "expired")
    }

    @Test("a normal closure by the server ends the messages without an error")
    func serverClosesNormally() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/stream?count=3&size=10")
        }.connect()
        var received: [WebSocketMessage] = []
        for try await message in socket.messages { received.append(message) }
        #expect(received == Array(repeating: .binary(Data(count: 10)), count: 3))
    }

    @Test("a slow reader still gets every message of a long stream, in order")
    func slowReader() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/stream?count=2000&size=1000")
            WebSocket.Configuration(maxQueuedMessages: 4, compression: nil)
        }.connect()
        var count = 0
        for try await message in socket.messages {
            #expect(message == .binary(Data(count: 1000)))
            count += 1
            if count % 500 == 0 { await Task.yield() }
        }
        #expect(count == 2000)
    }

    /// Each hostile route and the failure it must end in.
    static let hostile: [(path: String, failure: RequestError.WebSocketFailure, compression: Bool)] = [
        ("oversized-frame", .messageTooLarge, false),
        ("oversized-message?frames=300&size=65536", .messageTooLarge, false),
        ("compression-bomb?bytes=67108864", .messageTooLarge, true),
        ("invalid-utf8", .invalidUTF8, false),
        ("long-control", .protocolViolation, false),
        ("fragmented-control", .protocolViolation, false),
        ("bad-close-code", .protocolViolation, false),
        ("reserved-opcode", .protocolViolation, false),
        ("reserved-bits", .protocolViolation, false),
        ("masked", .protocolViolation, false),
        ("no-close", .connectionLost, false),
    ]

    @Test("a hostile server is a typed error", arguments: hostile.indices)
    func hostileServer(_ index: Int) async throws {
        let (path, failure, compression) = Self.hostile[index]
        let server = try TestServer()
        defer { server.stop() }
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/hostile/\(path)")
            WebSocket.Configuration(maxMessageBytes: 16 << 20, compression: compression ? .init() : nil)
        }.connect()
        let error = await #expect(throws: RequestError.self) { for try await _ in socket.messages {} }
        #expect(error?.webSocketFailure == failure, "\(path): \(String(describing: error))")
    }

    @Test("a ping flood is answered and the message after it arrives; a trickled message arrives whole")
    func floodAndTrickle() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let flooded = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/hostile/ping-flood?count=2000")
        }.connect()
        var iterator = flooded.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("after the flood"))
        try await flooded.close()
        let trickled = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/hostile/trickle?interval=5")
        }.connect()
        var trickle = trickled.messages.makeAsyncIterator()
        #expect(try await trickle.next() == .text("trickled"))
        try await trickled.close()
    }

    @Test("cancelling the task that reads the messages closes the socket with going away")
    func cancellation() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let socket = try await WebSocket { Url("ws://127.0.0.1:\(server.port)/websocket/echo") }.connect()
        let reader = Task { for try await _ in socket.messages {} }
        reader.cancel()
        let error = await #expect(throws: RequestError.self) { try await reader.value }
        #expect(error?.kind == .cancelled)
        #expect(await server.waitForWebSocketEvents(count: 1))
        #expect(server.webSocketEvents == [.closed(.goingAway, reason: "")])
    }

    @Test("a definition that cannot be a handshake is an invalid request, before anything is sent")
    func invalidDefinition() async throws {
        let error = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url("ftp://127.0.0.1:1/x")
                Method(.post)
            }.connect()
        }
        #expect(error?.kind == .invalidRequest)
    }

    #if os(Linux)
    @Test("wss:// runs the handshake over TLS with the transport's configuration")
    func secure() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let transport = NativeTransport {
            $0.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        }
        let socket = try await WebSocket {
            Url("wss://127.0.0.1:\(server.port)/websocket/echo")
            Using(transport)
        }.connect()
        try await socket.send(.text("over TLS"))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("over TLS"))
        try await socket.close()
        let untrusted = await #expect(throws: RequestError.self) {
            _ = try await WebSocket { Url("wss://127.0.0.1:\(server.port)/websocket/echo") }.connect()
        }
        #expect(untrusted?.kind == .tls)
    }
    #endif
}
