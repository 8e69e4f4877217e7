import Foundation
import RequestKitModel
import RequestKitTesting
import Testing

@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

/// A request that is the transport's only one in flight looks for its response itself for a short window (its
/// ``NativeTransport/Configuration/responsePollWindow``), when the server answered the connection's last request
/// within it. Whether a given response comes inside the window depends on the machine, so these tests assert what
/// holds either way: exact bytes, the bounds on looking, and that looking happens at all when the window is wide.
@Suite("NativeTransport: looking for a prompt response", .wallClock)
struct NativeTransportPollingTests {
    @Test("Responses read by the awaiting task are whole and exact, on one kept-alive connection")
    func promptResponsesAreExact() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // 10 ms: a generous window, so that a loopback answer comes inside it even on a busy machine.
        let transport = NativeTransport { $0.responsePollWindow = 0.01 }
        var index = 0
        var answered = 0
        while index < 40 || (answered == 0 && index < 400) {
            let seed = index % 7
            let response = try await transport.send(URLRequest(url: server.url("/bytes/\(3_000 + index)?seed=\(seed)")))
            #expect(response.statusCode == 200)
            #expect(response.body == TestPayload.randomBytes(count: 3_000 + index, seed: UInt64(seed)))
            index += 1
            answered = try await pollCounts(transport).answered
        }
        let counts = try await pollCounts(transport)
        #expect(counts.answered >= 1, "a response came within 10 ms of its request at least once")
        #expect(counts.answered <= counts.polls)
        #expect(server.stats.totalConnections == 1)
        #expect(transport.idleConnectionCount == 1)
    }

    @Test("A response read by the awaiting task that closes the connection: the next request opens a new one")
    func closingResponse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/closing") { _ in TestResponse(headers: [("Connection", "close")], body: .data(Data("bye".utf8)))
        }
        let transport = NativeTransport { $0.responsePollWindow = 0.01 }
        for round in 0..<5 {
            try await warmUp(transport, on: server, round: round)
            let closing = try await transport.send(URLRequest(url: server.url("/closing")))
            #expect(closing.body == Data("bye".utf8))
            #expect(transport.idleConnectionCount == 0)
        }
        #expect(server.stats.totalConnections == 5)
        #expect(server.requests.count == 20)
    }

    @Test("A streamed response whose head is read by the awaiting task still delivers its whole body")
    func streamedResponse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.responsePollWindow = 0.01 }
        try await warmUp(transport, on: server, round: 0)
        for index in 0..<10 {
            let count = 2_000 + 1_000 * index
            let url = server.url("/bytes/\(count)?seed=\(index)")
            let streaming = try await transport.stream(TransferRequest(URLRequest(url: url)))
            #expect(streaming.head.statusCode == 200)
            #expect(try await streaming.collect() == TestPayload.randomBytes(count: count, seed: UInt64(index)))
        }
        #expect(server.stats.totalConnections == 1)
    }

    @Test("A malformed response read by the awaiting task fails as it does when the loop reads it")
    func malformedResponse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/two-lengths") { _ in
            TestResponse(
                body: .raw {
                    try $0.writeRaw(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc".utf8))
                })
        }
        let transport = NativeTransport { $0.responsePollWindow = 0.01 }
        for round in 0..<5 {
            try await warmUp(transport, on: server, round: round)
            let error = try await #require(throws: RequestError.self) {
                try await transport.send(URLRequest(url: server.url("/two-lengths")))
            }
            #expect(error.underlyingError as? HTTP1ParseError == .conflictingContentLength)
            #expect(transport.idleConnectionCount == 0)
        }
        #expect(server.stats.totalConnections == 5)
    }

    @Test("A window of 0 never looks: every response is read by the event loop")
    func zeroWindowNeverPolls() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.responsePollWindow = 0 }
        for index in 0..<20 {
            let response = try await transport.send(URLRequest(url: server.url("/anything?i=\(index)")))
            #expect(response.statusCode == 200)
        }
        let counts = try await pollCounts(transport)
        #expect(counts.polls == 0)
        #expect(counts.answered == 0)
        #expect(server.stats.totalConnections == 1)
    }

    @Test("A server slower than the window is looked for after its first late answer, then once in 16 requests")
    func slowServerIsRarelyPolled() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        // 50 ms answers against a 100 µs window. The first request opens the connection (late answer 1); the second
        // looks (late answer 2); the 16 after it do not, but the 16th of them looks again.
        for index in 0..<18 {
            let response = try await transport.send(URLRequest(url: server.url("/delay/0.05?i=\(index)")))
            #expect(response.statusCode == 200)
        }
        let counts = try await pollCounts(transport)
        #expect(counts.polls <= 2)
        #expect(counts.answered == 0)
        #expect(server.stats.totalConnections == 1)
    }

    @Test("Out-of-range windows are clamped: negative, NaN and infinite never look; over 10 ms looks for 10 ms")
    func windowIsClamped() {
        var configuration = NativeTransport.Configuration()
        #expect(configuration.responsePollNanoseconds == 100_000)
        configuration.responsePollWindow = -1
        #expect(configuration.responsePollNanoseconds == 0)
        configuration.responsePollWindow = .nan
        #expect(configuration.responsePollNanoseconds == 0)
        configuration.responsePollWindow = .infinity
        #expect(configuration.responsePollNanoseconds == 0)
        configuration.responsePollWindow = 5
        #expect(configuration.responsePollNanoseconds == 10_000_000)
    }

    /// Three requests on one kept-alive connection, so that the next one is sent on it and may be looked for.
    private func warmUp(_ transport: NativeTransport, on server: TestServer, round: Int) async throws {
        for index in 0..<3 {
            let response = try await transport.send(URLRequest(url: server.url("/anything?r=\(round)&i=\(index)")))
            #expect(response.statusCode == 200)
        }
    }

    /// The looking done on the transport's one idle connection.
    private func pollCounts(_ transport: NativeTransport) async throws -> (polls: Int, answered: Int) {
        var connections = try transport.pool().idleConnections
        // Back in the pool as the response is handed over; a busy machine may take a moment to finish returning it.
        for _ in 0..<3_000 where connections.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
            connections = try transport.pool().idleConnections
        }
        try #require(connections.count == 1)
        return connections[0].pollCounts
    }
}
