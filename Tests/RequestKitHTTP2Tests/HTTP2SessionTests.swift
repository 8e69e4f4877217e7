#if canImport(CNghttp2)
import Foundation
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitHTTP2

/// The client side of an HTTP/2 connection, driven without a socket: bytes from an in-memory nghttp2 server (or
/// written by hand) go in, and each test reads what came out.
@Suite("HTTP/2 session")
struct HTTP2SessionTests {
    private static let head = HTTP2RequestHead(
        method: "GET", scheme: "https", authority: "api.example.com", path: "/todos?userId=1",
        headers: ["Accept": "application/json"])

    private static func client(_ configure: (inout HTTP2Settings) -> Void = { _ in }) throws -> HTTP2Session {
        var settings = HTTP2Settings()
        configure(&settings)
        return try HTTP2Session(settings: settings)
    }

    /// A client with one request started and its bytes taken, as if written: the server's bytes come next.
    private static func clientWithStream(
        _ configure: (inout HTTP2Settings) -> Void = { _ in }
    ) throws -> (HTTP2Session, Int32) {
        let client = try client(configure)
        let stream = try client.request(head, body: nil)
        _ = client.outgoing()
        return (client, stream)
    }

    /// A client whose one request the in-memory server has received: the server's answer comes next.
    private static func requestSentToPeer(
        _ configure: (inout HTTP2Settings) -> Void = { _ in }
    ) throws -> (HTTP2Session, HTTP2ServerPeer, Int32) {
        let client = try client(configure)
        let server = HTTP2ServerPeer()
        let stream = try client.request(head, body: nil)
        _ = server.exchange(with: client)
        return (client, server, stream)
    }

    /// What `session` makes of `bytes` from the server.
    private static func feed(_ session: HTTP2Session, _ bytes: [UInt8]) -> [HTTP2Session.Output] {
        bytes.withUnsafeBytes { session.receive($0) }
    }

    /// The server's bytes of `data`, as one body piece per output, joined.
    private static func body(_ outputs: [HTTP2Session.Output], stream: Int32) -> Data {
        outputs.reduce(into: Data()) { body, output in
            if case .data(stream, let piece) = output { body.append(piece) }
        }
    }

    // MARK: Requests and responses

    @Test("A GET gets its head, its body and its end, in that order")
    func getRoundTrip() throws {
        let (client, server, stream) = try Self.requestSentToPeer()
        server.respond(
            stream, status: 200, headers: [HTTPHeader(name: "content-type", value: "application/json")],
            body: Data("[]".utf8))
        let outputs = server.exchange(with: client)
        #expect(
            outputs == [
                .head(stream: stream, status: 200, headers: ["content-type": "application/json"]),
                .data(stream: stream, Data("[]".utf8)), .end(stream: stream),
            ])
        #expect(client.openStreamCount == 0)
        #expect(server.requests[stream]?.ended == true)
    }

    @Test("The request's header block has its pseudo-fields first, lower-case names, no HTTP/1.1 connection fields")
    func headerBlock() throws {
        let head = HTTP2RequestHead(
            method: "POST", scheme: "https", authority: "api.example.com", path: "",
            headers: [
                "Content-Type": "application/json", "Connection": "keep-alive", "Keep-Alive": "timeout=5",
                "Transfer-Encoding": "chunked", "Upgrade": "h2c", "Host": "api.example.com", "TE": "gzip",
                "X-Request-ID": "42",
            ])
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        let stream = try client.request(head, body: nil)
        _ = server.exchange(with: client)
        #expect(
            server.requests[stream]?.fields == [
                HTTPHeader(name: ":method", value: "POST"), HTTPHeader(name: ":scheme", value: "https"),
                HTTPHeader(name: ":authority", value: "api.example.com"), HTTPHeader(name: ":path", value: "/"),
                HTTPHeader(name: "content-type", value: "application/json"),
                HTTPHeader(name: "x-request-id", value: "42"),
            ])
    }

    @Test("TE is sent only as \"trailers\"")
    func teTrailers() {
        let head = HTTP2RequestHead(
            method: "GET", scheme: "https", authority: "a", path: "/", headers: ["TE": "Trailers"])
        #expect(head.fields.last == HTTPHeader(name: "te", value: "Trailers"))
    }

    @Test("A body larger than the server's window arrives whole, as the server opens its window")
    func uploadUnderFlowControl() throws {
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let stream = try client.request(Self.head, body: .bytes(body))
        _ = server.exchange(with: client)
        #expect(server.requests[stream]?.body == body)
        #expect(server.requests[stream]?.ended == true)
    }

    @Test("A file body is read as the windows allow and arrives whole")
    func fileUpload() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("h2-upload-\(UUID().uuidString)")
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 13) })
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        let stream = try client.request(Self.head, body: .reader(try RequestBody(file: file).makeReader()))
        _ = server.exchange(with: client)
        #expect(server.requests[stream]?.body == body)
        #expect(server.requests[stream]?.ended == true)
    }

    @Test("A body that cannot be read fails its stream with the reason and resets it")
    func unreadableBody() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("h2-gone-\(UUID().uuidString)")
        try Data("soon gone".utf8).write(to: file)
        let reader = try RequestBody(file: file).makeReader()
        try FileManager.default.removeItem(at: file)
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        let stream = try client.request(Self.head, body: .reader(reader))
        let outputs = server.exchange(with: client)
        guard case .failed(stream, .requestBodyUnreadable(let reason))? = outputs.first, outputs.count == 1 else {
            Issue.record("expected the stream to fail for its body, got \(outputs)")
            return
        }
        #expect(reason.contains(file.path))
        #expect(server.requests[stream]?.resetCode != nil)
        #expect(client.isAvailable)
    }

    @Test("Interim responses come before the final one")
    func informational() throws {
        let (client, server, stream) = try Self.requestSentToPeer()
        server.inform(stream, status: 103)
        server.respond(stream, status: 204)
        #expect(
            server.exchange(with: client) == [
                .informational(stream: stream, status: 103, headers: [:]),
                .head(stream: stream, status: 204, headers: [:]), .end(stream: stream),
            ])
    }

    @Test("Trailers come after the body")
    func trailers() throws {
        let (client, server, stream) = try Self.requestSentToPeer()
        server.respond(
            stream, status: 200, body: Data("ok".utf8), trailers: [HTTPHeader(name: "grpc-status", value: "0")])
        #expect(
            server.exchange(with: client) == [
                .head(stream: stream, status: 200, headers: [:]), .data(stream: stream, Data("ok".utf8)),
                .trailers(stream: stream, ["grpc-status": "0"]), .end(stream: stream),
            ])
    }

    @Test("Streams answered in any order each get their own response")
    func multiplexed() throws {
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        let first = try client.request(Self.head, body: nil)
        let second = try client.request(Self.head, body: nil)
        #expect(first == 1 && second == 3)
        _ = server.exchange(with: client)
        server.respond(second, status: 201, body: Data("b".utf8))
        server.respond(first, status: 200, body: Data("a".utf8))
        let outputs = server.exchange(with: client)
        #expect(Self.body(outputs, stream: first) == Data("a".utf8))
        #expect(Self.body(outputs, stream: second) == Data("b".utf8))
        #expect(outputs.contains(.head(stream: second, status: 201, headers: [:])))
        #expect(outputs.filter { if case .end = $0 { true } else { false } }.count == 2)
    }

    // MARK: Capacity

    @Test("The server's MAX_CONCURRENT_STREAMS limits the streams; one ending frees a place")
    func maxConcurrentStreams() throws {
        let client = try Self.client()
        let server = HTTP2ServerPeer(settings: [(Int32(0x3), 2)])
        _ = server.exchange(with: client)
        #expect(client.hasServerSettings)
        #expect(client.maxConcurrentStreams == 2)
        let first = try client.request(Self.head, body: nil)
        _ = try client.request(Self.head, body: nil)
        #expect(!client.canOpenStream)
        #expect(throws: HTTP2Session.Refusal.noStreamAvailable) { try client.request(Self.head, body: nil) }
        _ = server.exchange(with: client)
        server.respond(first, status: 200)
        _ = server.exchange(with: client)
        #expect(client.canOpenStream)
    }

    @Test("Until the server's SETTINGS arrive, the assumed number of streams applies")
    func assumedStreams() throws {
        let client = try Self.client { $0.assumedMaxConcurrentStreams = 1 }
        #expect(!client.hasServerSettings)
        _ = try client.request(Self.head, body: nil)
        #expect(throws: HTTP2Session.Refusal.noStreamAvailable) { try client.request(Self.head, body: nil) }
    }

    // MARK: Endings that allow a retry

    @Test("GOAWAY: streams above its last stream id are retried; those below finish; no new streams")
    func goAway() throws {
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        let streams = try (0..<3).map { _ in try client.request(Self.head, body: nil) }
        _ = server.exchange(with: client)
        server.goAway(lastStreamID: streams[0], code: .noError)
        let outputs = server.exchange(with: client)
        #expect(outputs.contains(.goingAway(lastStreamID: streams[0], code: .noError)))
        #expect(outputs.contains(.retry(stream: streams[1], isRefused: false)))
        #expect(outputs.contains(.retry(stream: streams[2], isRefused: false)))
        #expect(!client.isAvailable)
        #expect(throws: HTTP2Session.Refusal.connectionUnavailable) { try client.request(Self.head, body: nil) }
        server.respond(streams[0], status: 200, body: Data("done".utf8))
        let rest = server.exchange(with: client)
        #expect(Self.body(rest, stream: streams[0]) == Data("done".utf8))
        #expect(rest.contains(.end(stream: streams[0])))
    }

    @Test("REFUSED_STREAM before any response means the request may be sent again")
    func refusedStream() throws {
        let (client, server, stream) = try Self.requestSentToPeer()
        server.reset(stream, code: .refusedStream)
        #expect(server.exchange(with: client) == [.retry(stream: stream, isRefused: true)])
    }

    // MARK: Failures

    @Test("A reset after the head is a failure naming the code, not a retry")
    func resetAfterHead() throws {
        let (client, server, stream) = try Self.requestSentToPeer()
        server.inform(stream, status: 100)
        _ = server.exchange(with: client)
        server.reset(stream, code: .internalError)
        #expect(server.exchange(with: client) == [.failed(stream: stream, .reset(.internalError))])
    }

    @Test("A REFUSED_STREAM after the final head is a failure: the server had answered")
    func refusedAfterAnswer() throws {
        let client = try Self.client()
        var bytes = HTTP2FrameBytes.settingsFrame()
        let stream = try client.request(Self.head, body: nil)
        _ = client.outgoing()
        bytes += HTTP2FrameBytes.headersFrame(stream: UInt32(stream), block: HTTP2FrameBytes.status200)
        bytes += HTTP2FrameBytes.frame(HTTP2FrameBytes.rstStream, stream: UInt32(stream), payload: [0, 0, 0, 7])
        let outputs = Self.feed(client, bytes)
        #expect(
            outputs == [
                .head(stream: stream, status: 200, headers: [:]), .failed(stream: stream, .reset(.refusedStream)),
            ])
    }

    @Test("The connection ending mid-response fails the open streams and closes the session")
    func endedMidResponse() throws {
        let (client, _, stream) = try Self.requestSentToPeer()
        #expect(client.receivedEnd() == [.failed(stream: stream, .connectionLost(.closed)), .closed(.closed)])
        #expect(client.isFinished)
        #expect(Self.feed(client, HTTP2FrameBytes.settingsFrame()) == [])
    }

    @Test("A connection ending with no stream open closes cleanly")
    func endedIdle() throws {
        let client = try Self.client()
        #expect(client.receivedEnd() == [.closed(nil)])
    }

    @Test("GOAWAY with an error code fails the streams it cuts and reports the code")
    func goAwayWithError() throws {
        let (client, stream) = try Self.clientWithStream()
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.headersFrame(stream: UInt32(stream), block: HTTP2FrameBytes.status200)
        bytes += HTTP2FrameBytes.frame(
            HTTP2FrameBytes.goAway, payload: [0, 0, 0, UInt8(stream), 0, 0, 0, 0x2] + Array("overloaded".utf8))
        let outputs = Self.feed(client, bytes)
        #expect(outputs.contains(.goingAway(lastStreamID: stream, code: .internalError)))
        #expect(
            client.receivedEnd() == [
                .failed(stream: stream, .connectionLost(.goAway(.internalError, "overloaded"))),
                .closed(.goAway(.internalError, "overloaded")),
            ])
    }

    // MARK: Flow control

    @Test("A consumer that does not read holds the server to the stream's window; reading opens it again")
    func slowConsumer() throws {
        let (client, server, stream) = try Self.requestSentToPeer { $0.streamWindow = 16_384 }
        let body = Data(repeating: 0x61, count: 100_000)
        server.respond(stream, status: 200, body: body)
        let first = Self.body(server.exchange(with: client), stream: stream)
        #expect(first.count == 16_384)
        client.consumed(first.count, on: stream)
        let second = Self.body(server.exchange(with: client), stream: stream)
        #expect(second.count == 16_384)
        var received = first + second
        for _ in 0..<10 where received.count < body.count {
            client.consumed(16_384, on: stream)
            received += Self.body(server.exchange(with: client), stream: stream)
        }
        #expect(received == body)
    }

    @Test("A cancelled stream is reset with CANCEL and reports nothing more")
    func cancel() throws {
        let (client, server, stream) = try Self.requestSentToPeer()
        client.cancel(stream)
        _ = server.exchange(with: client)
        #expect(server.requests[stream]?.resetCode == HTTP2ErrorCode.cancel.rawValue)
        #expect(client.openStreamCount == 0)
        server.respond(stream, status: 200, body: Data("late".utf8))
        #expect(server.exchange(with: client) == [])
    }

    @Test("A PING is answered")
    func ping() throws {
        let client = try Self.client()
        let server = HTTP2ServerPeer()
        _ = server.exchange(with: client)
        client.ping()
        #expect(server.exchange(with: client) == [.pingAnswered])
    }

    // MARK: Hostile servers

    @Test("A header list over the limit resets its stream with a typed failure")
    func headerListLimit() throws {
        let (client, server, stream) = try Self.requestSentToPeer { $0.maxHeaderListBytes = 1_024 }
        let fields = (0..<40).map { HTTPHeader(name: "x-filler-\($0)", value: String(repeating: "v", count: 40)) }
        server.respond(stream, status: 200, headers: fields)
        #expect(server.exchange(with: client) == [.failed(stream: stream, .headerListTooLarge(limit: 1_024))])
        #expect(server.requests[stream]?.resetCode != nil)
        #expect(client.isAvailable)
    }

    @Test("A frame larger than the allowed frame size ends the connection with FRAME_SIZE_ERROR")
    func oversizedFrame() throws {
        let (client, stream) = try Self.clientWithStream()
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.headersFrame(stream: UInt32(stream), block: HTTP2FrameBytes.status200)
        bytes += HTTP2FrameBytes.frame(
            HTTP2FrameBytes.data, stream: UInt32(stream), payload: Array(repeating: 0, count: 16_385))
        let outputs = Self.feed(client, bytes)
        guard case .closed(.protocolViolation(let code, _))? = outputs.last else {
            Issue.record("expected the connection to close for a protocol violation, got \(outputs)")
            return
        }
        #expect(code == .frameSizeError)
        #expect(outputs.contains { if case .failed(stream, .connectionLost) = $0 { true } else { false } })
        #expect(client.isFinished)
    }

    @Test("A response header with a forbidden byte resets its stream with PROTOCOL_ERROR")
    func forbiddenHeaderBytes() throws {
        let (client, stream) = try Self.clientWithStream()
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.headersFrame(
            stream: UInt32(stream), block: HTTP2FrameBytes.status200 + HTTP2FrameBytes.literal("x-evil", "a\r\nb"))
        #expect(Self.feed(client, bytes) == [.failed(stream: stream, .reset(.protocolError))])
    }

    @Test("Headers on a stream the client never opened end the connection with PROTOCOL_ERROR")
    func unknownStream() throws {
        let client = try Self.client()
        _ = client.outgoing()
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.headersFrame(stream: 2, block: HTTP2FrameBytes.status200)
        let outputs = Self.feed(client, bytes)
        guard case .closed(.protocolViolation(let code, _))? = outputs.last else {
            Issue.record("expected the connection to close for a protocol violation, got \(outputs)")
            return
        }
        #expect(code == .protocolError)
    }

    @Test(
        "A server that sends PING or SETTINGS frames without reading their acknowledgements is cut off as a flood",
        arguments: [
            HTTP2FrameBytes.frame(HTTP2FrameBytes.ping, payload: Array(repeating: 1, count: 8)),
            HTTP2FrameBytes.settingsFrame(),
        ])
    func controlFrameFlood(frame: [UInt8]) throws {
        let client = try Self.client { $0.maxPendingAcknowledgements = 100 }
        _ = client.outgoing()
        var bytes = HTTP2FrameBytes.settingsFrame()
        for _ in 0..<200 { bytes += frame }
        let outputs = Self.feed(client, bytes)
        guard case .closed(.flooded)? = outputs.last else {
            Issue.record("expected the connection to close as flooded, got \(outputs)")
            return
        }
        #expect(HTTP2FrameBytes.goAwayCodes(in: client.outgoing()).last == HTTP2ErrorCode.enhanceYourCalm.rawValue)
        // Written promptly, the same frames are answered without end.
        let patient = try Self.client { $0.maxPendingAcknowledgements = 100 }
        _ = patient.outgoing()
        _ = Self.feed(patient, HTTP2FrameBytes.settingsFrame())
        for _ in 0..<200 {
            #expect(Self.feed(patient, frame).allSatisfy { if case .closed = $0 { false } else { true } })
            #expect(!patient.outgoing().isEmpty)
        }
    }

    @Test("A header block in more CONTINUATION frames than allowed ends the connection")
    func continuationFlood() throws {
        let (client, stream) = try Self.clientWithStream { $0.maxContinuationFrames = 8 }
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.frame(
            HTTP2FrameBytes.headers, stream: UInt32(stream), payload: HTTP2FrameBytes.status200)
        for _ in 0..<50 {
            bytes += HTTP2FrameBytes.frame(
                HTTP2FrameBytes.continuation, stream: UInt32(stream), payload: HTTP2FrameBytes.literal("x-a", "b"))
        }
        let outputs = Self.feed(client, bytes)
        guard case .closed? = outputs.last else {
            Issue.record("expected the connection to close, got \(outputs)")
            return
        }
        #expect(outputs.contains { if case .failed(stream, .connectionLost) = $0 { true } else { false } })
        #expect(!outputs.contains { if case .head = $0 { true } else { false } })
        // nghttp2 gives up without a word; the session says why before the connection closes.
        #expect(HTTP2FrameBytes.goAwayCodes(in: client.outgoing()) == [HTTP2ErrorCode.protocolError.rawValue])
    }

    @Test("What the session reports depends on the bytes alone, not on how the reads split them")
    func readsSplitAnywhere() throws {
        // A stream error (a response head without :status) and then a connection error (a frame too large): read at
        // once or a byte at a time, the stream's reset is reported before the connection's end.
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.frame(HTTP2FrameBytes.ping, payload: Array("abcdefgh".utf8))
        bytes += HTTP2FrameBytes.headersFrame(stream: 3, block: HTTP2FrameBytes.literal("x-a", "b"))
        bytes += HTTP2FrameBytes.frame(HTTP2FrameBytes.data, stream: 1, payload: Array(repeating: 0, count: 16_385))
        var reports: [[HTTP2Session.Output]] = []
        for piece in [bytes.count, 1, 7] {
            let client = try Self.client()
            for _ in 0..<2 { _ = try client.request(Self.head, body: nil) }
            _ = client.outgoing()
            var outputs: [HTTP2Session.Output] = []
            for start in stride(from: 0, to: bytes.count, by: piece) {
                outputs += Self.feed(client, Array(bytes[start..<min(bytes.count, start + piece)]))
            }
            reports.append(outputs)
        }
        #expect(reports[0].first == .failed(stream: 3, .reset(.protocolError)))
        #expect(reports[1] == reports[0])
        #expect(reports[2] == reports[0])
    }

    @Test("A header block with a field nghttp2 refuses ends the same way whether it arrives whole or in pieces")
    func brokenHeaderBlockSplitAnywhere() throws {
        // A field whose name is two NUL bytes, then bytes HPACK cannot decode: decoded as it arrived, the block was
        // the stream's error (the field) when the reads split it and the connection's (the decoding) when it came
        // whole. (Found by Fuzz/run-http2-fuzzer.sh.)
        var bytes = HTTP2FrameBytes.settingsFrame()
        bytes += HTTP2FrameBytes.headersFrame(
            stream: 1,
            block: HTTP2FrameBytes.status200 + [0x00, 0x02, 0x00, 0x00, 0x01, 0x00]
                + [0x00, 0x00, 0x01, 0x01, 0x04, 0x09, 0x00] + [UInt8](repeating: 0xFF, count: 21))
        var reports: [[HTTP2Session.Output]] = []
        for piece in [bytes.count, 1, 3, 7, 12] {
            let client = try Self.client()
            _ = try client.request(Self.head, body: nil)
            _ = client.outgoing()
            var outputs: [HTTP2Session.Output] = []
            for start in stride(from: 0, to: bytes.count, by: piece) {
                outputs += Self.feed(client, Array(bytes[start..<min(bytes.count, start + piece)]))
            }
            outputs += client.receivedEnd()
            reports.append(outputs)
        }
        #expect(reports[0].contains { if case .failed(stream: 1, _) = $0 { true } else { false } }, "\(reports[0])")
        for (index, report) in reports.enumerated().dropFirst() {
            #expect(report == reports[0], "piece \(index): \(report)")
        }
    }

    @Test("Frame boundaries are found across reads that split headers and payloads anywhere")
    func frameBoundaries() {
        let frames =
            HTTP2FrameBytes.settingsFrame() + HTTP2FrameBytes.frame(0x0, stream: 1, payload: [1, 2, 3])
            + HTTP2FrameBytes.settingsFrame([(4, 65_535)])
        for piece in 1...frames.count {
            var boundaries = HTTP2FrameBoundaries()
            var ends: [Int] = []
            var position = 0
            for start in stride(from: 0, to: frames.count, by: piece) {
                let chunk = Array(frames[start..<min(frames.count, start + piece)])
                var offset = 0
                while offset < chunk.count {
                    offset += chunk.withUnsafeBytes { boundaries.bytesToFrameEnd(of: $0, from: offset) }
                    if boundaries.isAtBoundary { ends.append(position + offset) }
                }
                position += chunk.count
            }
            #expect(ends == [9, 21, 36], "reads of \(piece) bytes")
        }
    }

    @Test("A server preface that is not SETTINGS ends the connection")
    func badPreface() throws {
        let client = try Self.client()
        _ = client.outgoing()
        let outputs = Self.feed(
            client, HTTP2FrameBytes.frame(HTTP2FrameBytes.ping, payload: Array(repeating: 0, count: 8)))
        guard case .closed(.protocolViolation)? = outputs.last else {
            Issue.record("expected the connection to close for a protocol violation, got \(outputs)")
            return
        }
    }
}
#endif
