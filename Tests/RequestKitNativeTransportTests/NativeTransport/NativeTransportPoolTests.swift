import Foundation
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("NativeTransport: connection pool", .wallClock)
struct NativeTransportPoolTests {
    @Test("Sequential requests reuse one kept-alive connection")
    func reuse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        for index in 0..<10 {
            let response = try await transport.send(URLRequest(url: server.url("/anything?i=\(index)")))
            #expect(response.statusCode == 200)
        }
        #expect(server.stats.totalConnections == 1)
        #expect(Set(server.requests.map(\.connectionID)).count == 1)
        #expect(transport.idleConnectionCount == 1)
    }

    @Test("Concurrent requests never open more than the per-host limit; the others wait their turn")
    func perHostLimit() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.maxConnectionsPerHost = 2 }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask { try await transport.send(URLRequest(url: server.url("/delay/0.1"))).statusCode }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 8))
        #expect(server.stats.peakConnections == 2)
        #expect(server.stats.totalConnections == 2)
    }

    @Test("A waiting request that is cancelled leaves the queue without taking a connection")
    func cancelledWaiter() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The only connection stays busy until the test lets go of the stream, however slowly a loaded machine runs
        // the test (a fixed delay could end before the waiting request is cancelled).
        server.route("/hold") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .chunked([Data("held".utf8), Data()], interval: .seconds(300)))
        }
        let transport = NativeTransport { $0.maxConnectionsPerHost = 1 }
        let held = try await transport.stream(TransferRequest(URLRequest(url: server.url("/hold"))))
        let waiting = Task { try await transport.send(URLRequest(url: server.url("/get"))) }
        waiting.cancel()
        let result = await waiting.result
        let error = try #require(throws: RequestError.self) { try result.get() }
        #expect(error.kind == .cancelled)
        #expect(server.requests.map(\.path) == ["/hold"])
        #expect(server.stats.totalConnections == 1)
        withExtendedLifetime(held) {}
    }

    @Test("A request waiting for a pooled connection times out after its idle timeout, naming the limit")
    func waitTimesOut() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The only connection stays busy until the test lets go of the stream (the client closing the connection
        // ends the pause before the body's end), however slowly a loaded machine runs the test.
        server.route("/hold") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .chunked([Data("held".utf8), Data()], interval: .seconds(300)))
        }
        let transport = NativeTransport { $0.maxConnectionsPerHost = 1 }
        let held = try await transport.stream(TransferRequest(URLRequest(url: server.url("/hold"))))
        var waiting = URLRequest(url: server.url("/get"))
        waiting.timeoutInterval = 0.5
        let error = try await #require(throws: RequestError.self) { try await transport.send(waiting) }
        #expect(error.kind == .timedOut)
        #expect(error.detail?.contains("came free within 0.5 s (at most 1 per host)") == true, "\(error)")
        #expect(server.requests.map(\.path) == ["/hold"])
        withExtendedLifetime(held) {}
    }

    @Test("Idle connections are closed after the idle timeout")
    func idleEviction() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.idleConnectionTimeout = 0.2 }
        // Whether the connection is still idle right after the response is a matter of timing (0.2 s on a busy
        // machine); the connection pool state machine's tables pin the expiry down exactly.
        _ = try await transport.send(URLRequest(url: server.url("/get")))
        var remaining = 1
        for _ in 0..<100 where remaining > 0 {
            try await Task.sleep(nanoseconds: 50_000_000)
            remaining = transport.idleConnectionCount
        }
        #expect(remaining == 0)
        _ = try await transport.send(URLRequest(url: server.url("/get")))
        #expect(server.stats.totalConnections == 2)
    }

    @Test("A connection the server closed while idle is not reused")
    func closedWhileIdle() async throws {
        let server = try TestServer { $0.keepAliveTimeout = .milliseconds(100) }
        defer { server.stop() }
        let transport = NativeTransport()
        _ = try await transport.send(URLRequest(url: server.url("/get")))
        for _ in 0..<100 where server.stats.openConnections > 0 {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let response = try await transport.send(URLRequest(url: server.url("/get")))
        #expect(response.statusCode == 200)
        #expect(server.stats.totalConnections == 2)
        #expect(server.stats.abortedRequests == 0)
    }

    @Test("An idempotent request on a connection that closes before responding is retried once")
    func staleRetry() async throws {
        let server = try LingeringCloseServer()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/once"))
        let transport = NativeTransport()
        _ = try await transport.send(URLRequest(url: url))
        let response = try await transport.send(URLRequest(url: url))
        #expect(response.body == Data("once".utf8))
        #expect(server.acceptedConnections == 2)
    }

    @Test(
        "An idempotent request whose kept-alive connection closes before responding goes once more on a fresh connection, never on another kept-alive one that may be as stale",
        arguments: ["send", "stream"])
    func staleRetryOnFreshConnection(_ verb: String) async throws {
        let server = try LingeringCloseServer(holdingUntil: 2)
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/once"))
        let transport = NativeTransport()
        // Two requests at once leave two kept-alive connections, each of which the server closes on its next request.
        async let first = transport.send(URLRequest(url: url))
        async let second = transport.send(URLRequest(url: url.appending(path: "again")))
        _ = try await (first, second)
        #expect(transport.idleConnectionCount == 2)
        let body: Data
        if verb == "stream" {
            let response = try await transport.stream(TransferRequest(URLRequest(url: url)))
            body = try await response.collect(upTo: 1_000)
        } else {
            body = try await transport.send(URLRequest(url: url)).body
        }
        #expect(body == Data("once".utf8))
        #expect(server.acceptedConnections == 3)
    }

    @Test("A PUT of a file on a connection that closes before responding is retried with the whole body again")
    func staleRetryWithFileBody() async throws {
        let server = try LingeringCloseServer()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/once"))
        let file = try TemporaryFile(contents: Data(repeating: 0x61, count: 1_000))
        defer { file.remove() }
        let transport = NativeTransport()
        _ = try await transport.send(URLRequest(url: url))
        var put = URLRequest(url: url)
        put.httpMethod = "PUT"
        let response = try await transport.send(TransferRequest(put, body: RequestBody(file: file.url)))
        #expect(response.body == Data("once".utf8))
        #expect(server.acceptedConnections == 2)
    }

    @Test("A POST on a connection that closes before responding fails clearly and is not retried")
    func staleNonIdempotent() async throws {
        let server = try LingeringCloseServer()
        defer { server.stop() }
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/once"))
        let transport = NativeTransport()
        _ = try await transport.send(URLRequest(url: url))
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        post.httpBody = Data("pay=1".utf8)
        let error = try await #require(throws: RequestError.self) { try await transport.send(post) }
        #expect(error.kind == .transport)
        #expect(
            error.detail
                == "the kept-alive connection closed before a response, and the request was not retried because "
                + "POST is not idempotent")
        #expect(server.acceptedConnections == 1)
    }
}
