import Foundation
import RequestKit
import Testing

/// The WebSocket client against real servers (Scripts/start-websocket-servers.sh, which `.ci/run` starts): each test
/// runs when its server's URL is in the environment.
@Suite("Interop with WebSocket servers")
struct WebSocketInteropTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test(
        "websocketd running cat: each message goes to cat as a line and comes back as a text message",
        .enabled(if: environment["REQUESTKIT_WEBSOCKETD_URL"] != nil, "REQUESTKIT_WEBSOCKETD_URL is not set"))
    func websocketd() async throws {
        let url = try #require(Self.environment["REQUESTKIT_WEBSOCKETD_URL"])
        let socket = try await WebSocket {
            Url(url)
            Timeout(30)
        }.connect()
        #expect(!socket.isCompressed)
        var iterator = socket.messages.makeAsyncIterator()
        for line in ["hello", "κόσμε", String(repeating: "x", count: 10_000)] {
            try await socket.send(.text(line))
            let echoed = try await iterator.next()
            #expect(echoed == .text(line))
        }
        try await socket.close()
    }

    @Test(
        "nginx proxying the Upgrade to Python websockets: nginx answers the 101, the subprotocol and compression pass",
        .enabled(
            if: environment["REQUESTKIT_NGINX_WEBSOCKET_URL"] != nil, "REQUESTKIT_NGINX_WEBSOCKET_URL is not set"))
    func nginxProxyingTheUpgrade() async throws {
        let url = try #require(Self.environment["REQUESTKIT_NGINX_WEBSOCKET_URL"])
        let socket = try await WebSocket {
            Url(url)
            Subprotocols("echo")
            Timeout(30)
        }.connect()
        #expect(socket.handshakeHeaders["Server"]?.hasPrefix("nginx/") == true)
        #expect(socket.subprotocol == "echo")
        #expect(socket.isCompressed)
        #expect(socket.metrics.attempts.first?.status == 101)
        var iterator = socket.messages.makeAsyncIterator()
        let messages: [WebSocketMessage] = [
            .text("through nginx"), .binary(Data((0..<256).map { UInt8($0) })),
            .text(String(repeating: "a long line through the proxy ", count: 20_000)),
        ]
        for message in messages {
            try await socket.send(message)
            #expect(try await iterator.next() == message)
        }
        try await socket.close(.normalClosure, reason: "done")
        #expect(try await iterator.next() == nil)
    }

    @Test(
        "Python websockets' echo server: the subprotocol chosen, permessage-deflate agreed, text and binary echoed",
        .enabled(if: environment["REQUESTKIT_PYWEBSOCKETS_URL"] != nil, "REQUESTKIT_PYWEBSOCKETS_URL is not set"))
    func pythonWebsockets() async throws {
        let url = try #require(Self.environment["REQUESTKIT_PYWEBSOCKETS_URL"])
        let socket = try await WebSocket {
            Url(url)
            Subprotocols("echo")
            Timeout(30)
        }.connect()
        #expect(socket.subprotocol == "echo")
        #expect(socket.isCompressed)
        var iterator = socket.messages.makeAsyncIterator()
        let messages: [WebSocketMessage] = [
            .text("hello"), .binary(Data((0..<256).map { UInt8($0) })),
            .text((0..<100_000).map(String.init).joined(separator: " ")),
            .binary(Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) })),
        ]
        for message in messages {
            try await socket.send(message)
            #expect(try await iterator.next() == message)
        }
        try await socket.close(.normalClosure, reason: "done")
        #expect(try await iterator.next() == nil)
    }

    @Test(
        "libwebsockets-test-server: the mirror subprotocol sends a message back; without one, compression is agreed",
        .enabled(if: environment["REQUESTKIT_LWS_URL"] != nil, "REQUESTKIT_LWS_URL is not set"))
    func libwebsockets() async throws {
        let url = try #require(Self.environment["REQUESTKIT_LWS_URL"])
        let mirror = try await WebSocket {
            Url(url)
            Subprotocols("lws-mirror-protocol")
            Timeout(30)
        }.connect()
        #expect(mirror.subprotocol == "lws-mirror-protocol")
        var iterator = mirror.messages.makeAsyncIterator()
        try await mirror.send(.text("mirrored"))
        #expect(try await iterator.next() == .text("mirrored"))
        try await mirror.close()
        let plain = try await WebSocket {
            Url(url)
            Timeout(30)
        }.connect()
        #expect(plain.isCompressed)
        try await plain.close()
    }
}
