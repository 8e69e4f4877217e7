import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Server-Sent Events on the wire", .timeLimit(.minutes(5)), .wallClock)
struct EventStreamTests {
    @Test("events() reads every event of /sse, with ids and the retry field", arguments: WireTransport.withTLS)
    func events(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        var received: [ServerSentEvent] = []
        for try await event in Request({
            Url(server.url("/sse?count=3&retry=10"))
            Using(transport.transport)
        })
        .events(EventSourceConfiguration(maxReconnectAttempts: 0)) {
            received.append(event)
        }
        #expect(received == (1...3).map { ServerSentEvent(id: "\($0)", data: "message \($0)") })
        #expect(server.requests.first?.header("Accept") == "text/event-stream")
    }

    @Test(
        "A dropped connection is resumed with Last-Event-ID after the server's retry delay",
        arguments: WireTransport.withTLS)
    func dropAndResume(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let clock = TestClock()
        let events = Task {
            var received: [String] = []
            for try await event in Request({
                Url(server.url("/sse?count=5&retry=500&drop=2"))
                Using(transport.transport)
                UseClock(clock)
            })
            .events(EventSourceConfiguration(maxReconnectAttempts: 1)) {
                received.append(event.data)
                if received.count == 5 { break }
            }
            return received
        }
        #expect(await clock.advanceToNextSleeper() == .milliseconds(500))
        #expect(try await events.value == (1...5).map { "message \($0)" })
        let requests = server.requests
        #expect(requests.count == 2)
        #expect(requests.first?.header("Last-Event-ID") == nil)
        #expect(requests.last?.header("Last-Event-ID") == "2")
    }

    @Test(
        "Reconnection stops after the configured attempts when the server keeps closing",
        arguments: WireTransport.withTLS)
    func maxAttempts(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let clock = TestClock()
        let events = Task {
            var received: [String] = []
            for try await event in Request({
                Url(server.url("/sse?count=1&retry=5"))
                Using(transport.transport)
                UseClock(clock)
            })
            .events(EventSourceConfiguration(maxReconnectAttempts: 2, backoff: .none)) {
                received.append(event.data)
            }
            return received
        }
        // The server asks for 5 ms; the floor is 100 ms.
        #expect(await clock.advanceToNextSleeper() == .milliseconds(100))
        #expect(await clock.advanceToNextSleeper() == .milliseconds(100))
        #expect(try await events.value == ["message 1"])
        #expect(server.requests.count == 3)
        #expect(clock.sleepCount == 2)
        #expect(server.requests.dropFirst().allSatisfy { $0.header("Last-Event-ID") == "1" })
    }

    @Test(
        "A server that ends every connection at once with retry: 0 gets reconnections that back off exponentially",
        arguments: WireTransport.withTLS)
    func reconnectionStorm(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/storm") { _ in
            TestResponse(
                headers: [("Content-Type", "text/event-stream")],
                body: .data(Data("retry: 0\ndata: tick \(counter.next())\n\n".utf8)))
        }
        let clock = TestClock()
        let configuration = EventSourceConfiguration(
            backoff: Backoff(multiplier: 2, maximum: .seconds(1), jitter: 0))
        let delivered = CallCounter()
        let events = Task {
            for try await _ in Request({
                Url(server.url("/storm"))
                Using(transport.transport)
                UseClock(clock)
            }).events(configuration) {
                _ = delivered.next()
            }
        }
        var waits: [Duration?] = []
        for _ in 1...6 { waits.append(await clock.advanceToNextSleeper()) }
        // Each connection delivers an event, so the attempts never run out; the waits grow instead.
        #expect(
            waits == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
                .seconds(1),
            ]
        )
        #expect(await clock.waitForSleepers(count: 1))
        events.cancel()
        let ending = try await #require(throws: RequestError.self) { try await events.value }
        #expect(ending.kind == .cancelled)
        #expect(delivered.value == 7)
        #expect(server.requests.count == 7)
    }

    @Test(
        "204 ends the stream; another status or content type fails it without reconnecting",
        arguments: WireTransport.withTLS)
    func statuses(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        var count = 0
        for try await _ in Request({
            Url(server.url("/status/204"))
            Using(transport.transport)
        }).events() { count += 1 }
        #expect(count == 0)
        let statusError = try await #require(throws: RequestError.self) {
            for try await _ in Request({
                Url(server.url("/status/503"))
                Using(transport.transport)
            }).events() {}
        }
        #expect(statusError.statusCode == 503)
        let typeError = try await #require(throws: RequestError.self) {
            for try await _ in Request({
                Url(server.url("/json"))
                Using(transport.transport)
            }).events() {}
        }
        #expect(typeError.kind == .validationFailed)
        #expect(server.requests.count == 3)
    }

    @Test("Cancelling the consuming task closes the event stream's connection", arguments: WireTransport.withTLS)
    func cancellation(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let first = AsyncStream<String>.makeStream()
        let task = Task {
            for try await event in Request({
                Url(server.url("/sse?count=10000&interval=20"))
                Using(transport.transport)
            }).events() {
                first.continuation.yield(event.data)
            }
        }
        var iterator = first.stream.makeAsyncIterator()
        #expect(await iterator.next() == "message 1")
        task.cancel()
        #expect(await server.waitUntil { $0.abortedRequests == 1 && $0.openConnections == 0 })
        #expect(server.requests.count == 1)
    }
}
