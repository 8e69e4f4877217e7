import Foundation
import RequestKit
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("Streaming responses on the wire", .wallClock)
struct StreamingResponseTests {
    /// Not the built-in `/chunked` route: its trailer fields crash FoundationNetworking on Linux
    /// ("Transfer completed, but there's no response"), whichever API reads the body.
    @Test("stream() delivers a chunked body byte for byte", arguments: WireTransport.withTLS)
    func chunkedBody(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/pieces") { _ in
            TestResponse(body: .chunked(["aaaa", "bbbb", "cccc"].map { Data($0.utf8) }, interval: .milliseconds(5)))
        }
        let response = try await Request {
            Url(server.url("/pieces"))
            Using(transport.transport)
        }.stream()
        #expect(response.head.statusCode == 200)
        #expect(response.head.body.isEmpty)
        var body = Data()
        for try await chunk in response { body.append(chunk) }
        #expect(body == Data("aaaabbbbcccc".utf8))
    }

    @Test("lines splits on LF, CRLF and CR and keeps a last unterminated line", arguments: WireTransport.withTLS)
    func lines(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/lines") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .chunked([Data("one\ntw".utf8), Data("o\r".utf8), Data("\nthree\rfour\n\nlast".utf8)]))
        }
        var lines: [String] = []
        let response = try await Request {
            Url(server.url("/lines"))
            Using(transport.transport)
        }.stream()
        for try await line in response.lines { lines.append(line) }
        #expect(lines == ["one", "two", "three", "four", "", "last"])
    }

    @Test("A 10 MiB body read through a 64 KiB buffer with a slow start arrives intact")
    func backpressure() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let total = 10 * 1024 * 1024
        let response = try await Request { Url(server.url("/large/\(total)")) }.stream(bufferLimit: 64 * 1024)
        try await Task.sleep(for: .milliseconds(300))
        var offset = 0
        var mismatches = 0
        for try await chunk in response {
            if chunk != TestPayload.largeBody(offset: offset, count: chunk.count) { mismatches += 1 }
            offset += chunk.count
        }
        #expect(offset == total)
        #expect(mismatches == 0)
    }

    @Test("Cancelling the consuming task closes the connection", arguments: WireTransport.withTLS)
    func cancellation(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        // A tick every 20 ms for five minutes, played by the server's loop: only the cancellation ends it.
        server.route("/forever") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .chunked(Array(repeating: Data("tick\n".utf8), count: 15_000), interval: .milliseconds(20)))
        }
        let firstLine = AsyncStream<String>.makeStream()
        let task = Task {
            let response = try await Request {
                Url(server.url("/forever"))
                Using(transport.transport)
            }.stream()
            for try await line in response.lines {
                firstLine.continuation.yield(line)
            }
        }
        var iterator = firstLine.stream.makeAsyncIterator()
        #expect(await iterator.next() == "tick")
        task.cancel()
        #expect(await server.waitUntil { $0.abortedRequests == 1 && $0.openConnections == 0 })
        let result = await task.result
        #expect(throws: RequestError.self) { try result.get() }
    }

    @Test("An unacceptable status throws before streaming, keeping the error body", arguments: WireTransport.withTLS)
    func unacceptableStatus(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/status/404"))
                Using(transport.transport)
            }.stream()
        }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.responseBody == Data("status 404".utf8))
    }

    @Test(
        "A connection dropped mid-body fails the stream after the bytes that arrived", arguments: WireTransport.withTLS)
    func droppedMidBody(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/cut") { _ in
            TestResponse.stepped(headers: [("Content-Length", "100")]) {
                AnyIterator([BodyStep.write(Data("partial".utf8)), .pause(.milliseconds(50)), .close].makeIterator())
            }
        }
        let response = try await Request {
            Url(server.url("/cut"))
            Using(transport.transport)
        }.stream()
        var received = Data()
        let error = try await #require(throws: RequestError.self) {
            for try await chunk in response { received.append(chunk) }
        }
        #expect(received == Data("partial".utf8))
        #expect(error.kind == .transport)
    }

    @Test("The idle timeout fails a stream whose server stops sending")
    func idleTimeout() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The built-in drip is played by the server's event loop, not a handler thread: the first `*` goes at once,
        // the second only after 300 s. The idle timeout leaves a busy machine half a minute for the head and the
        // first byte; the test is about the wait after them.
        let response = try await Request {
            Url(server.url("/drip?numbytes=2&duration=300"))
            Timeout(30)
        }.stream()
        var received = Data()
        let error = try await #require(throws: RequestError.self) {
            for try await chunk in response { received.append(chunk) }
        }
        #expect(received == Data("*".utf8))
        #expect(error.kind == .timedOut)
    }
}
