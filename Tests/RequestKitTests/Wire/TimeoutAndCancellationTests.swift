import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Timeouts and cancellation on the wire", .timeLimit(.minutes(5)), .wallClock)
struct TimeoutAndCancellationTests {
    @Test("The idle timeout fails a request to a slow route", arguments: WireTransport.withTLS)
    func idleTimeout(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        // Real time must pass for a socket to stay idle: a lower bound, and an upper bound 40 times the timeout.
        let clock = ContinuousClock()
        let start = clock.now
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/delay/300"))
                Using(transport.transport); Timeout(0.5)
            }.send()
        }
        let elapsed = clock.now - start
        #expect(error.kind == .timedOut)
        #expect(elapsed >= .milliseconds(450))
        #expect(elapsed < .seconds(90))
    }

    @Test(
        "The total deadline fails a request that keeps sending but never finishes in time",
        arguments: WireTransport.withTLS
    )
    func resourceTimeout(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let clock = TestClock()
        let task = Task {
            try await Request {
                Url(server.url("/drip?numbytes=600&duration=300"))
                Using(transport.transport)
                Timeout(5)
                Timeout(1, for: .resource)
                UseClock(clock)
            }.send()
        }
        #expect(await server.waitForRequests(count: 1, timeout: .seconds(120)))
        #expect(await clock.waitForSleepers(count: 1))
        await clock.advance(by: .seconds(1))
        let error = try await #require(throws: RequestError.self) { try await task.value }
        #expect(error.kind == .timedOut)
        #expect(error.description.contains("total deadline"))
        #expect(await server.waitUntil(timeout: .seconds(120)) { $0.abortedRequests == 1 })
    }

    @Test(
        "The total deadline covers a streamed body: a body still trickling when it passes fails, and the connection closes",
        arguments: WireTransport.withTLS
    )
    func resourceTimeoutCoversStream(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let clock = TestClock()
        let response = try await Request {
            Url(server.url("/drip?numbytes=30&duration=300"))
            Using(transport.transport)
            Timeout(120)
            Timeout(4, for: .resource)
            UseClock(clock)
        }.stream()
        #expect(response.head.statusCode == 200)
        #expect(await clock.waitForSleepers(count: 1))
        await clock.advance(by: .seconds(4))
        let error = try await #require(throws: RequestError.self) {
            for try await _ in response.body {}
        }
        #expect(error.kind == .timedOut)
        #expect(error.description.contains("the total deadline of 4 s passed"), "\(error)")
        #expect(await server.waitUntil(timeout: .seconds(120)) { $0.abortedRequests == 1 })
    }

    @Test(
        "The total deadline covers a download: a file still trickling when it passes fails, and nothing is left",
        arguments: WireTransport.withTLS
    )
    func resourceTimeoutCoversDownload(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let clock = TestClock()
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("deadline-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        let task = Task {
            try await Request {
                Url(server.url("/drip?numbytes=30&duration=300"))
                Using(transport.transport)
                Timeout(120)
                Timeout(4, for: .resource)
                UseClock(clock)
            }.download(to: destination)
        }
        #expect(await server.waitForRequests(count: 1, timeout: .seconds(120)))
        #expect(await clock.waitForSleepers(count: 1))
        await clock.advance(by: .seconds(4))
        let error = try await #require(throws: RequestError.self) { try await task.value }
        #expect(error.kind == .timedOut)
        #expect(error.description.contains("the total deadline of 4 s passed"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        // When libcurl lets go of a cancelled download's connection is its own business on a loaded machine; the
        // stream test above shows the connection closing on every transport.
        if !(transport.transport is URLSessionTransport) {
            #expect(await server.waitUntil(timeout: .seconds(120)) { $0.abortedRequests == 1 })
        }
    }

    @Test(
        "Cancelling the awaiting task cancels the transfer, and the server sees the connection closed",
        arguments: WireTransport.withTLS)
    func cancellation(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let task = Task {
            try await Request {
                Url(server.url("/delay/300"))
                Using(transport.transport)
            }.send()
        }
        #expect(await server.waitForRequests(count: 1, timeout: .seconds(120)))
        task.cancel()
        let result = await task.result
        let error = try #require(throws: RequestError.self) { try result.get() }
        #expect(error.kind == .cancelled)
        #expect(await server.waitUntil(timeout: .seconds(120)) { $0.abortedRequests == 1 })
    }

    @Test(
        "A handle from call() cancels the request and reports .cancelled to onError", arguments: WireTransport.withTLS)
    func handleCancellation(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let log = Log()
        let handle = Request {
            Url(server.url("/delay/300"))
            Using(transport.transport)
        }
        .onData { _ in log.add("data") }
        .onError { log.add("error \($0.kind)") }
        .call()
        #expect(await server.waitForRequests(count: 1, timeout: .seconds(120)))
        handle.cancel()
        await handle.wait()
        #expect(log.entries == ["error cancelled"])
    }
}
