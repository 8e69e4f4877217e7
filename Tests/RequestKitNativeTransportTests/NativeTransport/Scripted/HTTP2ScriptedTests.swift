#if canImport(CNghttp2)
import Foundation
import Testing

@testable import RequestKitHTTP2
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// HTTP/2 connections on a loop the test turns by hand, against an in-memory nghttp2 server behind a scripted byte
/// stream: floods, refusals, GOAWAY and stream limits, each exact, with no socket and no real time.
@Suite("HTTP/2 without sockets")
struct HTTP2ScriptedTests {
    /// A pool that speaks h2c to 127.0.0.1:8081 and HTTP/1.1 elsewhere.
    static func harness(maxConnectionsPerHost: Int = 4) -> LoopHarness {
        LoopHarness(maxConnectionsPerHost: maxConnectionsPerHost, http2: .priorKnowledge(for: ["127.0.0.1:8081"]))
    }

    static let settingsMaxConcurrentStreams: Int32 = 3

    @Test("Requests share one prior-knowledge connection, and each attempt counts its own stream's frames on the wire")
    func sharedConnectionAndWireBytes() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        let server = InMemoryHTTP2Server { id, _, peer in peer.respond(id, status: 200, body: Data("hi".utf8)) }
        server.attach(to: stream)
        let requests = (1...3).map { harness.submit("/\($0)", port: 8081) }
        harness.settle()
        #expect(requests.map(\.body) == ["hi", "hi", "hi"])
        #expect(harness.dialer.attemptCount == 1)
        #expect(server.paths == ["/1", "/2", "/3"])
        let client = stream.writtenBytes
        for (index, request) in requests.enumerated() {
            let streamID = Int32(2 * index + 1)
            let record = request.job.finishedRecord
            #expect(record.bytesSent == InMemoryHTTP2Server.frameBytes(of: streamID, in: client, from: 24))
            #expect(record.bytesReceived == InMemoryHTTP2Server.frameBytes(of: streamID, in: server.sent))
            #expect(record.bytesReceived > 9 + 2)
        }
    }

    @Test("A connection reset while it has a frame to write closes once: the failed write does not close it again")
    func resetWithBytesToWrite() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        let server = InMemoryHTTP2Server { id, _, peer in peer.respond(id, status: 200, body: Data("hi".utf8)) }
        server.attach(to: stream)
        let first = harness.submit("/1", port: 8081)
        harness.settle()
        #expect(first.body == "hi")
        #expect(harness.pool.idleCount == 1)
        // A PING the client must acknowledge, then the reset: the acknowledgement's write fails with EPIPE.
        stream.deliver([0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
        stream.deliverReset()
        harness.settle()
        #expect(harness.pool.idleCount == 0)
        let next = ScriptedByteStream()
        harness.dialer.plans = [.connects(next)]
        InMemoryHTTP2Server { id, _, peer in peer.respond(id, status: 200, body: Data("again".utf8)) }.attach(to: next)
        let second = harness.submit("/2", port: 8081)
        harness.settle()
        #expect(second.body == "again")
        #expect(harness.dialer.attemptCount == 2)
    }

    /// A server that answers nothing once its request arrived, and sends frames of an unknown type without end,
    /// which flow control does not limit.
    static func flood(_ stream: ScriptedByteStream) -> InMemoryHTTP2Server {
        let server = InMemoryHTTP2Server { _, _, _ in
            // 4,096 empty frames of type 0xFA on stream 0 per read: a receiver must ignore them (RFC 9113, 5.5).
            let frame: [UInt8] = [0, 0, 0, 0xFA, 0, 0, 0, 0, 0]
            let chunk = Array([[UInt8]](repeating: frame, count: 4096).joined())
            stream.flood = { chunk }
        }
        server.attach(to: stream)
        return server
    }

    @Test(
        "A connection flooded with frames flow control does not limit delays no other connection, and fails at its own timeout"
    )
    func floodIsFair() {
        let harness = Self.harness()
        let (flooded, other) = (ScriptedByteStream(), ScriptedByteStream())
        harness.dialer.plans = [.connects(flooded), .connects(other)]
        _ = Self.flood(flooded)
        let stuck = harness.submit("/stuck", port: 8081, timeout: 3)
        harness.turn(until: { flooded.bytesRead > 1 << 20 }, limit: 100)
        #expect(flooded.bytesRead > 1 << 20)
        other.answer("GET /other ", with: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        let request = harness.submit("/other", port: 8082)
        harness.turn(until: { request.isFinished }, limit: 50)
        #expect(request.body == "ok")
        #expect(!stuck.isFinished)
        harness.time.advance(by: 3_100_000_000)
        harness.turn(until: { stuck.isFinished }, limit: 50)
        #expect(stuck.error?.kind == .timedOut)
    }

    @Test("A server that refuses every stream after serving one: the request is refused at most five times in all")
    func refusalsAreBounded() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        let server = InMemoryHTTP2Server { id, request, peer in
            let path = request.fields.first { $0.name == ":path" }?.value
            if path == "/first" {
                peer.respond(id, status: 200, body: Data("ok".utf8))
            } else {
                peer.reset(id, code: .refusedStream)
            }
        }
        server.attach(to: stream)
        harness.submit("/first", port: 8081)
        harness.settle()
        let refused = harness.submit("/refused", port: 8081)
        harness.settle()
        #expect(server.paths == ["/first"] + Array(repeating: "/refused", count: RequestJob.maxRefusals + 1))
        #expect(refused.error?.detail == "the server refused the request's stream 5 times; it was not sent again")
        #expect(harness.dialer.attemptCount == 1)
    }

    @Test(
        "GOAWAY: the streams the server did not reach go once more on a new connection; the one below its last finishes"
    )
    func goAwayResendsWhatWasNotProcessed() {
        let harness = Self.harness()
        let (first, second) = (ScriptedByteStream(), ScriptedByteStream())
        harness.dialer.plans = [.connects(first), .connects(second)]
        var seen: [Int32] = []
        let going = InMemoryHTTP2Server { id, _, peer in
            seen.append(id)
            guard seen.count == 3 else { return }
            peer.goAway(lastStreamID: seen[0], code: .noError)
            peer.respond(seen[0], status: 200, body: Data("first".utf8))
        }
        going.attach(to: first)
        let fresh = InMemoryHTTP2Server { id, _, peer in peer.respond(id, status: 200, body: Data("again".utf8)) }
        fresh.attach(to: second)
        let requests = ["/a", "/b", "/c"].map { harness.submit($0, port: 8081) }
        harness.settle()
        #expect(
            requests.map(\.body) == ["first", "again", "again"], "\(requests.map { String(describing: $0.outcome) })")
        #expect(going.paths == ["/a", "/b", "/c"])
        #expect(fresh.paths == ["/b", "/c"])
        #expect(requests.map(\.job.unprocessedResends) == [0, 1, 1])
        #expect(requests.map(\.job.refusals) == [0, 0, 0])
    }

    @Test("An upload that goes on as the socket takes it is progress: it outlasts its idle timeout and succeeds")
    func slowUploadIsProgress() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        let body = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let server = InMemoryHTTP2Server { id, received, peer in
            peer.respond(id, status: received.body == body ? 201 : 400)
        }
        server.attach(to: stream)
        // The socket takes 16 KiB a second: the body needs 16 seconds, the request's idle timeout is 3.
        stream.writeCapacity = 16 << 10
        let upload = harness.submit("/upload", method: "POST", port: 8081, body: body, timeout: 3)
        harness.settle()
        for _ in 0..<40 where upload.outcome == nil {
            harness.time.advance(by: 1_000_000_000)
            stream.writeCapacity = 16 << 10
            harness.settle()
        }
        #expect(upload.error == nil)
        #expect(upload.status == 201)
    }

    @Test("An upload whose socket takes nothing more fails at its idle timeout")
    func stalledUploadTimesOut() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        InMemoryHTTP2Server { id, _, peer in peer.respond(id, status: 201) }.attach(to: stream)
        stream.writeCapacity = 16 << 10
        let upload = harness.submit("/upload", method: "POST", port: 8081, body: Data(count: 256 << 10), timeout: 3)
        harness.settle()
        harness.advance(2.9)
        #expect(upload.outcome == nil)
        harness.advance(0.2)
        #expect(upload.error?.kind == .timedOut)
    }

    @Test("A server that allows no streams at once: the request fails at its timeout, saying so")
    func noStreamsAllowed() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        // SETTINGS_MAX_CONCURRENT_STREAMS (0x3) = 0; a request sent before the settings arrived is refused.
        let server = InMemoryHTTP2Server(settings: [(Self.settingsMaxConcurrentStreams, 0)]) { id, _, peer in
            peer.reset(id, code: .refusedStream)
        }
        server.attach(to: stream)
        let request = harness.submit("/none", port: 8081, timeout: 2)
        harness.settle()
        #expect(!request.isFinished)
        harness.advance(2.1)
        #expect(request.error?.kind == .timedOut)
        #expect(
            request.error?.detail
                == "the HTTP/2 server at 127.0.0.1 port 8081 allows no streams at once "
                + "(SETTINGS_MAX_CONCURRENT_STREAMS 0), so the request could not start within its timeout")
    }

    @Test(
        "A streamed response's head goes to its task; a full consumer holds the stream's window shut until it reads",
        .timeLimit(.minutes(3)))
    func streamedBodyBackpressure() async throws {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        // One and a half times the stream's window (1 MiB): the rest can only come once the consumer reads.
        let body = Data(repeating: 0x7A, count: 3 << 19)
        let server = InMemoryHTTP2Server { id, _, peer in peer.respond(id, status: 200, body: body) }
        server.attach(to: stream)
        let (bodyStream, continuation) = ResponseBodyStream.makeStream(bufferLimit: 16 * 1024)
        let options = StreamOptions(
            url: URL(fileURLWithPath: "/"), continuation: continuation, responseLimits: ResponseLimits())
        let request = harness.submit("/stream", port: 8081, mode: .streaming(options))
        harness.settle()
        #expect(request.status == 200)
        // The consumer has read nothing: the server could send no more than the stream's first window.
        #expect(server.sent.count < (1 << 20) + 64 * 1024)
        var collected = Data()
        var iterator = bodyStream.makeAsyncIterator()
        while collected.count < body.count {
            harness.settle()
            guard let piece = try await iterator.next() else { break }
            collected.append(piece)
        }
        #expect(collected == body)
    }
}
#endif
