import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import RequestKitURLSession
import RequestKitWebSocket
import Testing

@testable import RequestKitTesting

/// A WebSocket through a ``RecordingTransport``: recorded against TestServer's echo route as the handshake's entry
/// with its messages (`_webSocketMessages`, as browsers' HAR export keeps them), then replayed with the server
/// stopped.
@Suite("WebSocket recording and replay", .wallClock)
struct WebSocketReplayTests {
    static let binary = Data([0x00, 0x01, 0x02, 0xFF])

    /// Records a connection to the echo route in `name`: text and binary sent, each echoed, then a normal close.
    static func record(_ folder: CassetteFolder, _ name: String) async throws -> (port: Int, requests: Int) {
        let server = try TestServer()
        defer { server.stop() }
        let transport = try folder.transport(name, mode: .recordOnce)
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/echo")
            Header.Any("X-Client", "tests")
            WebSocket.Configuration(compression: nil)
            Using(transport)
        }.connect()
        var iterator = socket.messages.makeAsyncIterator()
        try await socket.send(.text("hello"))
        #expect(try await iterator.next() == .text("hello"))
        try await socket.send(.binary(binary))
        #expect(try await iterator.next() == .binary(binary))
        try await socket.close(.normalClosure, reason: "done")
        #expect(try await iterator.next() == nil)
        return (server.port, server.requests.count)
    }

    @Test("recording keeps the handshake as an entry and the messages both ways, binary in base64")
    func records() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let (port, requests) = try await Self.record(folder, "echo.har")
        #expect(requests == 1)
        let log = try HARDocument.decoded(from: Data(contentsOf: folder.cassette("echo.har"))).log
        #expect(log.entries.count == 1)
        let entry = try #require(log.entries.first)
        #expect(entry.request.method == "GET")
        #expect(entry.request.url == "ws://127.0.0.1:\(port)/websocket/echo")
        #expect(entry.request.headers.contains(HARNameValue(name: "X-Client", value: "tests")))
        #expect(entry.response.status == 101)
        #expect(entry.response.headers.contains { $0.name.lowercased() == "sec-websocket-accept" })
        let messages = try #require(entry.webSocketMessages)
        #expect(messages.map(\.type) == ["send", "receive", "send", "receive"])
        #expect(messages.map(\.opcode) == [1, 1, 2, 2])
        #expect(messages.map(\.data) == ["hello", "hello", "AAEC/w==", "AAEC/w=="])
        #expect(messages.allSatisfy { $0.time > 1_700_000_000 })
    }

    @Test("replay serves the recorded messages in order with the server stopped, and ends as recorded")
    func replays() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let (port, _) = try await Self.record(folder, "echo.har")
        let transport = try folder.transport("echo.har", mode: .replayOnly)
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(port)/websocket/echo")
            Using(transport)
        }.connect()
        #expect(socket.handshakeHeaders["Upgrade"]?.lowercased() == "websocket")
        #expect(!socket.isCompressed)
        var iterator = socket.messages.makeAsyncIterator()
        try await socket.send(.text("hello"))
        #expect(try await iterator.next() == .text("hello"))
        try await socket.send(.binary(Self.binary))
        #expect(try await iterator.next() == .binary(Self.binary))
        #expect(try await iterator.next() == nil)
        try await socket.close(.normalClosure, reason: "done")
        let error = await #expect(throws: RequestError.self) { try await socket.send(.text("late")) }
        #expect(error?.webSocketFailure == .closed)
    }

    @Test("a message sent that is not the next one recorded is a typed error naming both")
    func mismatch() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let (port, _) = try await Self.record(folder, "echo.har")
        let transport = try folder.transport("echo.har", mode: .replayOnly)
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(port)/websocket/echo")
            Using(transport)
        }.connect()
        let error = await #expect(throws: RequestError.self) { try await socket.send(.text("goodbye")) }
        #expect(error?.kind == .transport)
        #expect(
            error?.detail
                == "RecordingTransport: message 1 sent on the WebSocket differs from the one echo.har records: "
                + "sent text, 7 bytes \"goodbye\", recorded text, 5 bytes \"hello\"")
        try await socket.send(.text("hello"))
        try await socket.send(.binary(Self.binary))
        let extra = await #expect(throws: RequestError.self) { try await socket.send(.text("more")) }
        #expect(
            extra?.detail
                == "RecordingTransport: message 3 sent on the WebSocket (text, 4 bytes) is not in echo.har, "
                + "which records 2 sent")
    }

    @Test("a handshake the cassette does not hold is a typed error, and nothing is sent")
    func unknownHandshake() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let (port, _) = try await Self.record(folder, "echo.har")
        let transport = try folder.transport("echo.har", mode: .replayOnly)
        let error = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url("ws://127.0.0.1:\(port)/websocket/other")
                Using(transport)
            }.connect()
        }
        #expect(error?.kind == .transport)
        #expect(error?.detail?.hasPrefix("RecordingTransport: echo.har records no request matching GET ws://") == true)
    }

    @Test("a refused handshake is recorded with its answer and replays as the same handshakeRefused error")
    func refusedHandshake() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let server = try TestServer()
        let url = "ws://127.0.0.1:\(server.port)/websocket/nothing-here"
        let recording = try folder.transport("refused.har", mode: .recordOnce)
        let recorded = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url(url); Using(recording)
            }.connect()
        }
        server.stop()
        #expect(recorded?.webSocketFailure == .handshakeRefused)
        let log = try HARDocument.decoded(from: Data(contentsOf: folder.cassette("refused.har"))).log
        #expect(log.entries.map(\.response.status) == [404])
        #expect(log.entries.first?.webSocketMessages == nil)
        let replaying = try folder.transport("refused.har", mode: .replayOnly)
        let replayed = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url(url); Using(replaying)
            }.connect()
        }
        #expect(replayed?.kind == .webSocket)
        #expect(replayed?.webSocketFailure == .handshakeRefused)
        #expect(replayed?.statusCode == 404)
        #expect(
            replayed?.response.map { String(decoding: $0.body, as: UTF8.self) } == "not found: /websocket/nothing-here")
    }

    @Test("recording over a transport that cannot open a WebSocket is refused, not passed over")
    func recordingNeedsNative() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let transport = try folder.transport("echo.har", mode: .recordAll, base: URLSessionTransport())
        let error = await #expect(throws: RequestError.self) {
            _ = try await WebSocket {
                Url("ws://127.0.0.1:9/websocket/echo")
                Using(transport)
            }.connect()
        }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.problems.map(\.kind) == [.invalidComponent])
    }

    @Test("a cassette with WebSocket messages round-trips through its file format byte for byte")
    func roundTrip() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        _ = try await Self.record(folder, "echo.har")
        let file = try Data(contentsOf: folder.cassette("echo.har"))
        #expect(try HARDocument.decoded(from: file).encoded() == file)
        let message = HARWebSocketMessage(
            .binary(Self.binary), sent: true, at: Date(timeIntervalSince1970: 1_765_000_000.5))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(
            String(decoding: try encoder.encode(message), as: UTF8.self)
                == #"{"data":"AAEC/w==","opcode":2,"time":1765000000.5,"type":"send"}"#)
        #expect(try message.message() == .binary(Self.binary))
        let text = try JSONDecoder().decode(
            HARWebSocketMessage.self,
            from: Data(#"{"type":"receive","time":1765000001.25,"opcode":1,"data":"hi"}"#.utf8))
        #expect(try text.message() == .text("hi"))
        #expect(!text.isSent)
    }
}
