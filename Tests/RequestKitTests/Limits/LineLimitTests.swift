import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKit
@testable import RequestKitTesting

/// ``ResponseLimits/maxLineBytes``: what reading a stream as text may hold while it waits for a line or an event
/// to end.
@Suite("Line and event limits", .wallClock)
struct LineLimitTests {
    /// The lines of `chunks`, read with `limit`, or the error that ended them (with the lines before it).
    private func lines(of chunks: [String], limit: Int) async -> (lines: [String], error: RequestError?) {
        let (stream, continuation) = ResponseBodyStream.makeStream(bufferLimit: 1 << 20)
        for chunk in chunks { continuation.yield(Data(chunk.utf8)) }
        continuation.finish()
        var body = stream
        body.maxLineBytes = limit
        var lines: [String] = []
        do {
            for try await line in body.lines { lines.append(line) }
            return (lines, nil)
        } catch {
            return (lines, RequestError.wrapping(error))
        }
    }

    /// `text` cut into pieces of `size` bytes.
    private func pieces(_ text: String, size: Int) -> [String] {
        let bytes = Array(text.utf8)
        return stride(from: 0, to: bytes.count, by: size).map {
            String(decoding: bytes[$0..<min(bytes.count, $0 + size)], as: UTF8.self)
        }
    }

    /// A route that sends `first`, then `next()` every few milliseconds until the client leaves (at most 300 s),
    /// played by the server's loop.
    private static func routeEndless(
        on server: TestServer, at path: String, type: String, first: String, next: @escaping @Sendable () -> String
    ) {
        server.route(path) { _ in
            TestResponse.stepped(headers: [("Content-Type", type)]) {
                let deadline = ContinuousClock.now + .seconds(300)
                var startedFirst = false
                var pausesNext = true
                return AnyIterator {
                    guard startedFirst else {
                        startedFirst = true
                        return .write(Data(first.utf8))
                    }
                    guard ContinuousClock.now < deadline else { return nil }
                    pausesNext.toggle()
                    return pausesNext ? .pause(.milliseconds(5)) : .write(Data(next().utf8))
                }
            }
        }
    }

    @Test(
        "A line of exactly the limit is delivered and one byte more fails, however the body is cut",
        arguments: [1, 2, 5, 64])
    func exactBound(size: Int) async {
        let fits = "0123456789\r\nabc\rdef\n\n" + "0123456789"
        let (lines, error) = await lines(of: pieces(fits, size: size), limit: 10)
        #expect(error == nil)
        #expect(lines == ["0123456789", "abc", "def", "", "0123456789"])

        let (before, failure) = await self.lines(of: pieces("ok\n01234567890\nnever\n", size: size), limit: 10)
        #expect(before == ["ok"])
        #expect(failure?.kind == .responseTooLarge)
        #expect(
            failure?.description.contains("a line of the response body is longer than the limit of 10 bytes") == true)
        let (_, unterminated) = await self.lines(of: pieces("ok\n01234567890", size: size), limit: 10)
        #expect(unterminated?.kind == .responseTooLarge)
    }

    @Test("Many short lines in one chunk all arrive, in order")
    func manyLines() async {
        let text = (0..<20_000).map { "line \($0)" }.joined(separator: "\n")
        let (lines, error) = await lines(of: [text], limit: 16)
        #expect(error == nil)
        #expect(lines.count == 20_000)
        #expect(lines.first == "line 0")
        #expect(lines.last == "line 19999")
    }

    @Test(
        "stream().lines fails a line that never ends at maxLineBytes, keeping the head, and closes the connection",
        arguments: WireTransport.withTLS)
    func endlessLine(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        Self.routeEndless(on: server, at: "/endless-line", type: "text/plain", first: "first\n") {
            String(repeating: "x", count: 4096)
        }
        let response = try await Request {
            Url(server.url("/endless-line"))
            Using(transport.transport)
            ResponseLimits(maxLineBytes: 64 << 10)
        }.stream()
        var lines: [String] = []
        let error = await #expect(throws: RequestError.self) {
            for try await line in response.lines { lines.append(line) }
        }
        #expect(lines == ["first"])
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.response?.statusCode == 200)
        #expect(error?.description.contains("longer than the limit of 65536 bytes") == true)
        #expect(await server.waitUntil { $0.abortedRequests == 1 && $0.openConnections == 0 })
    }

    @Test(
        "events() fails an event that never ends at maxLineBytes, without reconnecting, and closes the connection",
        arguments: WireTransport.withTLS)
    func endlessEvent(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        Self.routeEndless(on: server, at: "/endless-event", type: "text/event-stream", first: "data: first\n\n") {
            "data: " + String(repeating: "x", count: 4090) + "\n"
        }
        var events: [String] = []
        let error = await #expect(throws: RequestError.self) {
            for try await event in Request({
                Url(server.url("/endless-event"))
                Using(transport.transport)
                ResponseLimits(maxLineBytes: 64 << 10)
            }).events() {
                events.append(event.data)
            }
        }
        #expect(events == ["first"])
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.response?.statusCode == 200)
        #expect(
            error?.description.contains("an event of the event stream is larger than the limit of 65536 bytes") == true)
        #expect(await server.waitUntil { $0.abortedRequests == 1 && $0.openConnections == 0 })
        #expect(server.requests.count == 1)
    }

    @Test("A client's responseLimits.maxLineBytes bounds the lines of its streams")
    func clientLimit() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/long") { _ in .text(String(repeating: "y", count: 300) + "\nshort\n") }
        let client = try Client(baseURL: server.url("/").absoluteString) { $0.responseLimits.maxLineBytes = 299 }
        let response = try await client.request(Request { Path("long") }).stream()
        let error = await #expect(throws: RequestError.self) { for try await _ in response.lines {} }
        #expect(error?.kind == .responseTooLarge)
        let roomy = try Client(baseURL: server.url("/").absoluteString) { $0.responseLimits.maxLineBytes = 300 }
        var lines: [String] = []
        for try await line in try await roomy.request(Request { Path("long") }).stream().lines { lines.append(line) }
        #expect(lines == [String(repeating: "y", count: 300), "short"])
    }
}
