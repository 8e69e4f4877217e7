#if canImport(CNghttp2)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import RequestKitWebSocket
import Testing

/// A `wss://` socket that prefers HTTP/2 against Node's own `http2` server (Scripts/websocket-h2-echo-server.mjs):
/// it opens on an HTTP/2 stream with extended CONNECT (RFC 8441) when the server's `SETTINGS` allow it, and over
/// HTTP/1.1 on a second connection when they do not. The server says in `x-carrier` which one it answered on.
@Suite("WebSocket over HTTP/2 against Node's http2 server", .wallClock)
struct WebSocketOverHTTP2Tests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    private static let node = ["/usr/bin/node", "/usr/local/bin/node"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    private static let transport = NativeTransport {
        $0.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        $0.connectTimeout = 10
    }

    /// The echo server, started with its extended CONNECT allowed or not; ``stop()`` ends it.
    private struct EchoServer {
        let port: Int
        let process: ChildProcess

        static func start(allowsExtendedConnect: Bool = true) async throws -> EchoServer {
            let node = try #require(WebSocketOverHTTP2Tests.node)
            let listener = try SilentListener()
            let port = listener.port
            listener.close()
            let fixtures = root.appendingPathComponent("Sources/RequestKitTesting/Server/TLSFixtures")
            let process = try ChildProcess(
                node,
                [
                    root.appendingPathComponent("Scripts/websocket-h2-echo-server.mjs").path, String(port),
                    fixtures.appendingPathComponent("valid.pem").path,
                    fixtures.appendingPathComponent("valid-key.pem").path,
                ] + (allowsExtendedConnect ? [] : ["--no-extended-connect"]))
            let server = EchoServer(port: port, process: process)
            for _ in 0..<600 {
                if (try? await offThePool { _ = try BlockingHTTPConnection(port: port, timeout: .seconds(1)) }) != nil {
                    return server
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            server.stop()
            throw POSIXError(.ECONNREFUSED)
        }

        func stop() { process.terminate() }
    }

    private func connect(
        _ server: EchoServer, path: String = "/echo", prefersHTTP2: Bool = true, maxQueuedMessages: Int = 128
    ) async throws(RequestError) -> WebSocket.Socket {
        try await WebSocket {
            Url("wss://127.0.0.1:\(server.port)\(path)")
            Using(Self.transport)
            Subprotocols("echo", "chat")
            WebSocket.Configuration(
                maxQueuedMessages: maxQueuedMessages, compression: nil, prefersHTTP2: prefersHTTP2)
            Timeout(30)
        }.connect()
    }

    @Test(
        "With extended CONNECT allowed, messages larger than the stream's window go both ways on an HTTP/2 stream",
        .enabled(if: node != nil, "node is not installed"))
    func extendedConnect() async throws {
        let server = try await EchoServer.start()
        defer { server.stop() }
        let socket = try await connect(server)
        #expect(socket.handshakeHeaders["x-carrier"] == "h2")
        #expect(socket.subprotocol == "echo")
        let attempt = try #require(socket.metrics.attempts.first)
        #expect(attempt.status == 200)
        #expect(attempt.networkProtocol == "h2")
        var iterator = socket.messages.makeAsyncIterator()
        let messages: [WebSocketMessage] = [
            .text("over a stream"), .binary(Data((0..<256).map { UInt8($0) })),
            .binary(Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) })),
            .text(String(repeating: "κόσμε ", count: 50_000)),
        ]
        for message in messages {
            try await socket.send(message)
            #expect(try await iterator.next() == message)
        }
        try await socket.close(.normalClosure, reason: "done")
        #expect(try await iterator.next() == nil)
    }

    @Test(
        "Many messages sent before any is read: the stream's flow control holds them, and each comes back in order",
        .enabled(if: node != nil, "node is not installed"))
    func manyMessagesInFlight() async throws {
        let server = try await EchoServer.start()
        defer { server.stop() }
        let socket = try await connect(server)
        let payload = Data(repeating: 0x5a, count: 64 * 1024)
        for index in 0..<64 {
            try await socket.send(.binary(payload + Data([UInt8(index)])))
        }
        var iterator = socket.messages.makeAsyncIterator()
        for index in 0..<64 {
            #expect(try await iterator.next() == .binary(payload + Data([UInt8(index)])))
        }
        try await socket.close()
    }

    @Test(
        "A close frame that waits for a closed window goes once the window opens: the stream is not reset under it",
        .enabled(if: node != nil, "node is not installed"))
    func closeBehindClosedWindow() async throws {
        let server = try await EchoServer.start()
        defer { server.stop() }
        // The server closes the stream's window, sends a frame with a reserved opcode, and opens the window 300 ms
        // later: the client's close frame (1002, a protocol error) waits for it.
        let socket = try await connect(server, path: "/violation-behind-window")
        var iterator = socket.messages.makeAsyncIterator()
        await #expect(throws: RequestError.self) { _ = try await iterator.next() }
        // What the server read: the code of the client's close frame, or "reset" when the stream was reset first.
        let report = try await connect(server, path: "/closes")
        var records = report.messages.makeAsyncIterator()
        let record = try await records.next()
        #expect(record == .text("1002"))
        try await report.close()
    }

    @Test(
        "While the consumer's queue is full, the connection's PINGs are answered and the stream's messages wait",
        .enabled(if: node != nil, "node is not installed"))
    func pingsWhilePaused() async throws {
        let server = try await EchoServer.start()
        defer { server.stop() }
        // Two queued messages fill the queue: the other six wait while the server pings and gives the answer a second.
        let socket = try await connect(server, path: "/ping-while-paused", maxQueuedMessages: 2)
        try await Task.sleep(for: .seconds(2))
        var received: [WebSocketMessage] = []
        for try await message in socket.messages {
            received.append(message)
            if received.count == 9 { break }
        }
        #expect(received == (0..<8).map { .text("m\($0)") } + [.text("ping answered")])
        try await socket.close()
    }

    @Test(
        "h2 without extended CONNECT: HTTP/1.1 on a second connection, and the next socket makes one connection",
        .enabled(if: node != nil, "node is not installed"))
    func fallsBackToHTTP1() async throws {
        let server = try await EchoServer.start(allowsExtendedConnect: false)
        defer { server.stop() }
        let socket = try await connect(server)
        #expect(socket.handshakeHeaders["x-carrier"] == "http/1.1")
        #expect(socket.handshakeHeaders["x-connections"] == "2")
        #expect(socket.metrics.attempts.first?.status == 101)
        #expect(socket.metrics.attempts.first?.networkProtocol == "http/1.1")
        try await socket.send(.text("after the fallback"))
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("after the fallback"))
        try await socket.close()
        let next = try await connect(server)
        #expect(next.handshakeHeaders["x-carrier"] == "http/1.1")
        #expect(next.handshakeHeaders["x-connections"] == "3")
        try await next.close()
    }

    @Test(
        "Without prefersHTTP2 the socket upgrades over HTTP/1.1, even where extended CONNECT is allowed",
        .enabled(if: node != nil, "node is not installed"))
    func http1ByDefault() async throws {
        let server = try await EchoServer.start()
        defer { server.stop() }
        let socket = try await connect(server, prefersHTTP2: false)
        #expect(socket.handshakeHeaders["x-carrier"] == "http/1.1")
        try await socket.close()
    }

    @Test(
        "An extended CONNECT answered 403 is handshakeRefused, with the status and the body the server sent",
        .enabled(if: node != nil, "node is not installed"))
    func refused() async throws {
        let server = try await EchoServer.start()
        defer { server.stop() }
        do {
            _ = try await connect(server, path: "/refuse")
            Issue.record("the socket opened")
        } catch {
            #expect(error.webSocketFailure == .handshakeRefused)
            #expect(error.response?.status == 403)
            #expect(error.responseBody.map { String(decoding: $0, as: UTF8.self) } == "no sockets here")
        }
    }
}
#endif
