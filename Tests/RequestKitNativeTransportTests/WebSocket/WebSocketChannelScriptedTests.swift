import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport
@testable import RequestKitWebSocket

/// The WebSocket connection's shell on a loop the test turns, over a scripted stream: the upgrade request's exact
/// bytes, the answer's checks, frames both ways, the bounded queue that stops reading, the closing handshake,
/// cancellation and the timers, with no socket and no real time.
@Suite("WebSocket channel (scripted)")
struct WebSocketChannelScriptedTests {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="
    static let accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
    static let answer =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"

    /// A channel to 127.0.0.1:8080 on `harness`'s loop, the stream its first connection attempt gets.
    static func channel(
        _ harness: LoopHarness, stream: ScriptedByteStream, subprotocols: [String] = [],
        configuration: WebSocket.Configuration = WebSocket.Configuration(compression: nil),
        fields: [HTTPHeader] = [], timeout: Double = 10
    ) throws -> WebSocketChannel {
        harness.dialer.plans = [.connects(stream)]
        let url = try #require(URL(string: "http://127.0.0.1:8080/chat?room=1"))
        let handshake = WebSocketHandshake(key: key, subprotocols: subprotocols, compression: configuration.compression)
        let upgrade = WebSocketUpgrade(handshake: handshake, url: url)
        let target = try HTTP1RequestEncoder.target(of: url)
        let setup = WebSocketChannel.Setup(
            key: target.key, request: try upgrade.requestBytes(fields: fields, target: target), upgrade: upgrade,
            configuration: configuration, timeout: timeout, connectTimeout: 5, maskingKeys: FixedMaskingKeys())
        return WebSocketChannel(
            setup: setup, loop: harness.loop, dialer: harness.dialer, resolver: harness.pool.resolver)
    }

    /// Collects every byte the client writes.
    final class Written: @unchecked Sendable {
        private let lock = NSLock()
        private var storage: [UInt8] = []
        var bytes: [UInt8] { lock.withLock { storage } }
        func append(_ bytes: [UInt8]) { lock.withLock { storage += bytes } }
        /// What was written after the upgrade request.
        var frames: [UInt8] {
            let all = bytes
            guard let end = String(decoding: all, as: UTF8.self).range(of: "\r\n\r\n") else { return [] }
            let headLength = String(decoding: all, as: UTF8.self)[..<end.upperBound].utf8.count
            return Array(all[headLength...])
        }
    }

    static func record(_ stream: ScriptedByteStream) -> Written {
        let written = Written()
        stream.peer = { bytes in
            written.append(bytes)
            return []
        }
        return written
    }

    /// Turns the loop, letting the tasks that wait on it run, until `condition` holds.
    static func turn(_ harness: LoopHarness, until condition: () -> Bool) async {
        for _ in 0..<200_000 where !condition() {
            harness.loop.turn()
            await Task.yield()
        }
    }

    /// Runs `body`, turning the loop until it returns.
    static func onLoop<T: Sendable>(
        _ harness: LoopHarness, _ body: @escaping @Sendable () async throws(RequestError) -> T
    ) async throws(RequestError) -> T {
        let running = Task { () async -> Result<T, RequestError> in
            do throws(RequestError) { return .success(try await body()) } catch { return .failure(error) }
        }
        let done = Written()
        let watcher = Task {
            _ = await running.value
            done.append([1])
        }
        await turn(harness) { !done.bytes.isEmpty }
        await watcher.value
        return try await running.value.get()
    }

    /// The next message, turning the loop until it comes.
    static func take(_ channel: WebSocketChannel, _ harness: LoopHarness) async throws -> WebSocketMessage? {
        try await onLoop(harness) { () async throws(RequestError) in try await channel.next() }
    }

    /// Opens a channel whose server accepts the handshake.
    static func opened(
        _ harness: LoopHarness, stream: ScriptedByteStream,
        configuration: WebSocket.Configuration = WebSocket.Configuration(compression: nil), afterHead: [UInt8] = []
    ) async throws -> WebSocketChannel {
        let channel = try channel(harness, stream: stream, configuration: configuration)
        let opening = Task { try await channel.open() }
        await turn(harness) { stream.written.contains("\r\n\r\n") }
        stream.deliver(Array(answer.utf8) + afterHead)
        await turn(harness) { !stream.isReadable }
        _ = try await opening.value
        return channel
    }

    @Test("the upgrade request is a GET with the request's fields, then Host and the handshake's own")
    func upgradeRequestBytes() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try Self.channel(
            harness, stream: stream, subprotocols: ["chat"], fields: [HTTPHeader(name: "Authorization", value: "x")])
        let opening = Task { try await channel.open() }
        await Self.turn(harness) { stream.written.contains("\r\n\r\n") }
        #expect(
            stream.written
                == "GET /chat?room=1 HTTP/1.1\r\nAuthorization: x\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\n"
                + "Connection: Upgrade\r\nSec-WebSocket-Key: \(Self.key)\r\nSec-WebSocket-Version: 13\r\n"
                + "Sec-WebSocket-Protocol: chat\r\n\r\n")
        stream.deliver(
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(Self.accept)\r\nSec-WebSocket-Protocol: chat\r\n\r\n")
        await Self.turn(harness) { !stream.isReadable }
        let opened = try await opening.value
        #expect(opened.subprotocol == "chat")
        #expect(opened.compression == nil)
    }

    @Test("frames that arrive with the 101's head are delivered, and sent messages are masked frames")
    func framesBothWays() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let written = Self.record(stream)
        let channel = try await Self.opened(harness, stream: stream, afterHead: FrameBytes.text("hi"))
        let first = try await channel.next()
        #expect(first == .text("hi"))
        let sending = Task { try await channel.send(.binary(Data([1, 2, 3]))) }
        await Self.turn(harness) { written.frames.count >= 9 }
        try await sending.value
        #expect(written.frames == FrameBytes.frame(0x2, [1, 2, 3], key: [0, 0, 0, 0]))
        stream.deliver(FrameBytes.frame(0x9, [7]))
        await Self.turn(harness) { written.frames.count >= 9 + 7 }
        #expect(Array(written.frames.suffix(7)) == FrameBytes.frame(0xA, [7], key: [0, 0, 0, 0]))
    }

    @Test(
        "an open connection is lent to the task: its message is written and the answer read with the loop not turning")
    func lentToTheTask() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let written = Self.record(stream)
        let channel = try await Self.opened(harness, stream: stream)
        #expect(harness.loop.turn() == false)

        let sent = Written()
        let sending = Task {
            try await channel.send(.text("ping"))
            sent.append([1])
        }
        for _ in 0..<10_000 where sent.bytes.isEmpty { await Task.yield() }
        #expect(sent.bytes == [1], "the send waited for the loop")
        #expect(written.frames == FrameBytes.text("ping", key: [0, 0, 0, 0]))

        stream.deliver(FrameBytes.text("pong") + FrameBytes.frame(0x9, [7]))
        let received = Written()
        let receiving = Task {
            let message = try await channel.next()
            received.append([1])
            return message
        }
        for _ in 0..<10_000 where received.bytes.isEmpty { await Task.yield() }
        #expect(received.bytes == [1], "the message waited for the loop")
        // The ping that came with it is answered from the task too.
        #expect(Array(written.frames.dropFirst(10)) == FrameBytes.frame(0xA, [7], key: [0, 0, 0, 0]))
        #expect(harness.loop.turn() == false)

        await Self.turn(harness) { !sent.bytes.isEmpty && !received.bytes.isEmpty }
        try await sending.value
        #expect(try await receiving.value == .text("pong"))
    }

    @Test("a refused handshake is a handshakeRefused error with the status and the body")
    func refused() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try Self.channel(harness, stream: stream)
        let opening = Task { try await channel.open() }
        stream.answer("\r\n\r\n", with: "HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\nno way")
        await Self.turn(harness) { stream.isClosed }
        let error = await #expect(throws: RequestError.self) { try await opening.value }
        #expect(error?.webSocketFailure == .handshakeRefused)
        #expect(error?.statusCode == 403)
        #expect(error?.response?.body == Data("no way".utf8))
    }

    @Test("a 101 with a wrong Sec-WebSocket-Accept is an invalidHandshake error and the stream closes")
    func wrongAccept() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try Self.channel(harness, stream: stream)
        let opening = Task { try await channel.open() }
        stream.answer(
            "\r\n\r\n",
            with: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: AAAA\r\n\r\n")
        await Self.turn(harness) { stream.isClosed }
        let error = await #expect(throws: RequestError.self) { try await opening.value }
        #expect(error?.webSocketFailure == .invalidHandshake)
        #expect(stream.isClosed)
    }

    @Test("a server that never answers the upgrade fails it at the handshake's timeout")
    func handshakeTimeout() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try Self.channel(harness, stream: stream, timeout: 3)
        let opening = Task { try await channel.open() }
        await Self.turn(harness) { stream.written.contains("\r\n\r\n") }
        harness.advance(2.9)
        #expect(!stream.isClosed)
        harness.advance(0.2)
        let error = await #expect(throws: RequestError.self) { try await opening.value }
        #expect(error?.kind == .timedOut)
        #expect(stream.isClosed)
    }

    @Test("a full queue stops reading until the consumer takes messages")
    func backpressure() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let configuration = WebSocket.Configuration(maxQueuedMessages: 2, compression: nil)
        let channel = try await Self.opened(harness, stream: stream, configuration: configuration)
        stream.deliver((1...5).flatMap { FrameBytes.text("m\($0)") })
        harness.settle()
        #expect(!stream.isReadable)
        // Two messages fill the queue: reading stops, and what comes next stays in the stream.
        stream.deliver((6...10).flatMap { FrameBytes.text("m\($0)") })
        harness.settle()
        #expect(stream.isReadable)
        var received: [WebSocketMessage] = []
        for _ in 1...10 {
            if let message = try await Self.take(channel, harness) { received.append(message) }
        }
        #expect(received == (1...10).map { .text("m\($0)") })
        #expect(!stream.isReadable)
    }

    @Test(
        "a read the loop had waiting while the task filled the queue reads nothing: the close and the end after the last message are not lost"
    )
    func pauseFromTheTaskComesBeforeTheLoopsRead() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let configuration = WebSocket.Configuration(maxQueuedMessages: 4, compression: nil)
        let channel = try await Self.opened(harness, stream: stream, configuration: configuration)
        // The first read fills the channel's 64 KiB buffer with one message, so the task reads again; that read finds
        // the loop told the socket is readable (a step the loop must keep until the task is done), then the rest:
        // four messages that fill the queue, the server's close, and the end of the stream.
        let big = FrameBytes.frame(0x2, Array(repeating: 7, count: 65_532))
        #expect(big.count == 65_536)
        let rest = (1...4).flatMap { FrameBytes.text("m\($0)") } + FrameBytes.close(1000, "done")
        let served = Written()
        stream.flood = { [unowned stream] in
            guard served.bytes.isEmpty else { return [] }
            served.append([1])
            channel.descriptorIsReady(stream.descriptor, readable: true, writable: false)
            return rest
        }
        stream.deliver(big)
        stream.deliverEnd()
        #expect(try await channel.next() == .binary(Data(repeating: 7, count: 65_532)))
        #expect(served.bytes == [1])
        var received: [WebSocketMessage] = []
        while let message = try await Self.take(channel, harness) { received.append(message) }
        #expect(received == (1...4).map { .text("m\($0)") })
        await Self.turn(harness) { stream.isClosed }
        #expect(stream.isClosed)
        stream.flood = nil
    }

    @Test("the server's close ends the messages; its error code is the error the consumer sees")
    func serverCloses() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let written = Self.record(stream)
        let channel = try await Self.opened(harness, stream: stream)
        stream.deliver(FrameBytes.close(1011, "overloaded"))
        await Self.turn(harness) { !written.frames.isEmpty }
        #expect(written.frames == FrameBytes.close(1011, key: [0, 0, 0, 0]))
        let error = await #expect(throws: RequestError.self) { try await channel.next() }
        #expect(error?.webSocketFailure == .closedByServer)
        #expect(error?.webSocketCloseCode == .internalError)
        #expect(error?.webSocketCloseReason == "overloaded")
        #expect(try await channel.next() == nil)
        stream.deliverEnd()
        await Self.turn(harness) { stream.isClosed }
        #expect(stream.isClosed)
    }

    @Test("close sends a close frame, ends the messages at the answer, and returns once the server closes TCP")
    func clientCloses() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let written = Self.record(stream)
        let channel = try await Self.opened(harness, stream: stream)
        let closing = Task { try await channel.close(.normalClosure, reason: "bye") }
        await Self.turn(harness) { !written.frames.isEmpty }
        #expect(written.frames == FrameBytes.close(1000, "bye", key: [0, 0, 0, 0]))
        stream.deliver(FrameBytes.close(1000))
        stream.deliverEnd()
        await Self.turn(harness) { stream.isClosed }
        try await closing.value
        #expect(try await channel.next() == nil)
    }

    @Test("a server that does not answer the close is left after the close timeout, with a timedOut error")
    func closeTimeout() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let configuration = WebSocket.Configuration(closeTimeout: .seconds(2), compression: nil)
        let written = Self.record(stream)
        let channel = try await Self.opened(harness, stream: stream, configuration: configuration)
        let closing = Task { try await channel.close(.normalClosure, reason: "") }
        await Self.turn(harness) { !written.frames.isEmpty }
        harness.advance(1.9)
        #expect(!stream.isClosed)
        harness.advance(0.2)
        let error = await #expect(throws: RequestError.self) { try await closing.value }
        #expect(error?.webSocketFailure == .closeTimeout)
        #expect(stream.isClosed)
    }

    @Test("cancelling the consuming task closes the connection with going away; a later send says how it ended")
    func cancellation() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let written = Self.record(stream)
        let channel = try await Self.opened(harness, stream: stream)
        let consumer = Task { try await channel.next() }
        consumer.cancel()
        await Self.turn(harness) { stream.isClosed }
        #expect(written.frames == FrameBytes.close(1001, key: [0, 0, 0, 0]))
        let error = await #expect(throws: RequestError.self) { try await consumer.value }
        #expect(error?.kind == .cancelled)
        let afterwards = await #expect(throws: RequestError.self) {
            try await Self.onLoop(harness) { () async throws(RequestError) in try await channel.send(.text("late")) }
        }
        #expect(afterwards?.webSocketFailure == .closed)
        // The late send's error says why the connection ended.
        #expect(afterwards.map { "\($0)" }?.contains("it ended with") == true)
    }

    @Test(
        "cancelling a send that waits for a full socket ends it at once as cancelled; the connection closes at the close timeout"
    )
    func cancelledSend() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try await Self.opened(harness, stream: stream)
        let upgradeBytes = stream.writtenBytes.count
        // The socket takes the first 100 bytes of the message's frame, then nothing more: the sender waits.
        stream.writeCapacity = 100
        let message = WebSocketMessage.binary(Data(count: 2 * WebSocketChannel.outboundHighWater))
        let sender = Task { () async -> Result<Void, RequestError> in
            do throws(RequestError) {
                return .success(try await channel.send(message))
            } catch {
                return .failure(error)
            }
        }
        await Self.turn(harness) { stream.writtenBytes.count == upgradeBytes + 100 }
        sender.cancel()
        let done = Written()
        let watcher = Task {
            _ = await sender.value
            done.append([1])
        }
        // No time passes: the cancellation lets the sender go, not a timer.
        await Self.turn(harness) { !done.bytes.isEmpty }
        #expect(!done.bytes.isEmpty, "the cancelled send returned before the close timeout")
        // Were it still waiting, the test would end it rather than hang: the close timeout lets every sender go.
        if done.bytes.isEmpty {
            channel.cancel()
            harness.loop.turn()
        }
        let closeTimeout = WebSocketChannel.seconds(WebSocket.Configuration(compression: nil).closeTimeout)
        #expect(stream.writtenBytes.count == upgradeBytes + 100)
        #expect(!stream.isClosed)
        // The close frame cannot follow half a frame: the stream closes at the close timeout.
        harness.advance(closeTimeout + 0.1)
        await Self.turn(harness) { stream.isClosed }
        await watcher.value
        let error = await #expect(throws: RequestError.self) { try await sender.value.get() }
        #expect(error?.kind == .cancelled)
        #expect(stream.isClosed)
        let consumer = await #expect(throws: RequestError.self) { try await Self.take(channel, harness) }
        #expect(consumer?.kind == .cancelled)
    }

    @Test("keep-alive pings go out at the interval; one unanswered ends the connection as timed out")
    func keepAlive() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let written = Self.record(stream)
        let configuration = WebSocket.Configuration(pingInterval: .seconds(5), compression: nil)
        let channel = try await Self.opened(harness, stream: stream, configuration: configuration)
        harness.advance(5)
        #expect(written.frames == FrameBytes.frame(0x9, [0, 0, 0, 0, 0, 0, 0, 1], key: [0, 0, 0, 0]))
        harness.advance(5)
        #expect(stream.isClosed)
        let error = await #expect(throws: RequestError.self) { try await channel.next() }
        #expect(error?.webSocketFailure == .pingTimeout)
        #expect(error?.kind == .timedOut)
    }

    @Test("the connection lost without a close frame is a connectionLost error")
    func connectionLost() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try await Self.opened(harness, stream: stream)
        stream.deliver(FrameBytes.text("last"))
        stream.deliverEnd()
        harness.settle()
        #expect(try await channel.next() == .text("last"))
        let error = await #expect(throws: RequestError.self) { try await channel.next() }
        #expect(error?.webSocketFailure == .connectionLost)
        #expect(error?.webSocketCloseCode == .abnormalClosure)
    }
}
