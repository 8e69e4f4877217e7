import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport
@testable import RequestKitWebSocket

/// The opening handshake's metrics, recorded as an HTTP request's attempt is, on a loop the test turns and a clock
/// it moves: the connection with each address tried, the upgrade request sent, the answer's first byte and whole
/// head, the byte counts and the status, on the open socket and in a failed handshake's error.
@Suite("WebSocket handshake metrics (scripted)", .wallClock)
struct WebSocketHandshakeMetricsTests {
    typealias Scripted = WebSocketChannelScriptedTests
    static let address = ScriptedDialer.address("127.0.0.1")

    /// A channel whose connection attempt hangs until the test completes it.
    static func hangingChannel(
        _ harness: LoopHarness, configuration: WebSocket.Configuration = WebSocket.Configuration(compression: nil)
    ) throws -> WebSocketChannel {
        let channel = try Scripted.channel(harness, stream: ScriptedByteStream(), configuration: configuration)
        harness.dialer.plans = [.hangs]
        return channel
    }

    @Test("an accepted handshake: connect 50 ms, wait 250 ms, head 100 ms, the bytes of the head alone, status 101")
    func accepted() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try Self.hangingChannel(harness)
        let opening = Task { try await channel.open() }
        await Scripted.turn(harness) { harness.dialer.attempts == [Self.address] }
        harness.advance(0.05)
        harness.dialer.complete(Self.address, with: .connects(stream))
        await Scripted.turn(harness) { stream.written.contains("\r\n\r\n") }
        harness.advance(0.25)
        let answer = Array(Scripted.answer.utf8)
        stream.deliver(Array(answer[..<20]))
        harness.settle()
        harness.advance(0.1)
        stream.deliver(Array(answer[20...]) + FrameBytes.text("first"))
        await Scripted.turn(harness) { !stream.isReadable }
        let opened = try await opening.value

        let attempt = try #require(opened.metrics.attempts.first)
        #expect(opened.metrics.attempts.count == 1)
        #expect(attempt.url?.absoluteString == "http://127.0.0.1:8080/chat?room=1")
        #expect(attempt.status == 101)
        #expect(attempt.poolWait?.duration == .zero)
        #expect(attempt.domainLookup == nil)
        #expect(attempt.connect?.duration == .milliseconds(50))
        #expect(attempt.tlsHandshake == nil)
        #expect(attempt.requestSent?.duration == .zero)
        #expect(attempt.waitingForResponse == .milliseconds(250))
        #expect(attempt.receivingResponse == .milliseconds(100))
        #expect(attempt.duration == .milliseconds(400))
        #expect(attempt.addressAttempts.map(\.description) == ["127.0.0.1:8080 connected after 50.0 ms"])
        #expect(attempt.remoteAddress == "127.0.0.1:8080")
        #expect(attempt.networkProtocol == "http/1.1")
        #expect(attempt.isReusedConnection == false)
        #expect(attempt.bytesSent == stream.writtenBytes.count)
        #expect(attempt.bytesReceived == answer.count)
        #expect(attempt.bodyBytesReceived == 0)
        #expect(attempt.timeline == "pool 0.0 ms · connect 50.0 ms · send 0.0 ms · wait 250.0 ms · body 100.0 ms")
        #expect(try await Scripted.take(channel, harness) == .text("first"))
    }

    @Test("a refused handshake's error has the attempt: its status, the refusal's bytes, and when it ended")
    func refused() async throws {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        let channel = try Scripted.channel(harness, stream: stream)
        let opening = Task { try await channel.open() }
        await Scripted.turn(harness) { stream.written.contains("\r\n\r\n") }
        harness.advance(0.2)
        let refusal = "HTTP/1.1 403 Forbidden\r\nContent-Length: 6\r\n\r\nno way"
        stream.deliver(refusal)
        await Scripted.turn(harness) { stream.isClosed }
        let error = await #expect(throws: RequestError.self) { try await opening.value }
        #expect(error?.webSocketFailure == .handshakeRefused)
        let attempts = error?.metrics?.attempts ?? []
        #expect(attempts.count == 1)
        #expect(attempts.first?.status == 403)
        #expect(attempts.first?.connect?.duration == .zero)
        #expect(attempts.first?.waitingForResponse == .milliseconds(200))
        #expect(attempts.first?.duration == .milliseconds(200))
        #expect(attempts.first?.bytesSent == stream.writtenBytes.count)
        #expect(attempts.first?.bytesReceived == refusal.utf8.count)
        #expect(attempts.first?.addressAttempts.map(\.description) == ["127.0.0.1:8080 connected after 0.0 ms"])
    }

    @Test("a refused connection's error names the address tried and how it failed, with nothing sent")
    func connectionRefused() async throws {
        let harness = LoopHarness()
        let channel = try Scripted.channel(harness, stream: ScriptedByteStream())
        harness.dialer.plans = [.fails(POSIXError(.ECONNREFUSED))]
        let opening = Task { try await channel.open() }
        await Scripted.turn(harness) { !harness.dialer.attempts.isEmpty }
        harness.settle()
        let error = await #expect(throws: RequestError.self) { try await opening.value }
        #expect(error?.connectionFailure == .connectionRefused)
        let attempt = error?.metrics?.attempts.first
        #expect(error?.metrics?.attempts.count == 1)
        #expect(
            attempt?.addressAttempts.map(\.description) == [
                "127.0.0.1:8080 failed (\(String(cString: strerror(ECONNREFUSED)))) after 0.0 ms"
            ])
        #expect(attempt?.requestSent == nil)
        #expect(attempt?.firstResponseByte == nil)
        #expect(attempt?.status == nil)
        #expect(attempt?.bytesSent == 0)
    }

    @Test("a handshake that times out keeps its attempt: the address that hung, and the end at the timeout")
    func timedOut() async throws {
        let harness = LoopHarness()
        let channel = try Scripted.channel(harness, stream: ScriptedByteStream(), timeout: 3)
        harness.dialer.plans = [.hangs]
        let opening = Task { try await channel.open() }
        await Scripted.turn(harness) { harness.dialer.attempts == [Self.address] }
        harness.advance(3)
        let error = await #expect(throws: RequestError.self) { try await opening.value }
        #expect(error?.kind == .timedOut)
        #expect(error?.metrics?.attempts.first?.duration == .seconds(3))
        #expect(error?.metrics?.attempts.first?.connect == nil)
    }
}
