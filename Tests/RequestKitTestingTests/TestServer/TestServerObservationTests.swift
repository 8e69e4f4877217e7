import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("TestServer observation: stats, aborted requests and shutdown", .wallClock)
struct TestServerObservationTests {
    @Test("120 concurrent blocked requests are all active at once and counted as peaks")
    func peakCounts() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Held on the server's loop, not in the handler: 120 requests waiting hold none of the server's threads.
        let gate = Gate()
        server.route("/hold") { _ in TestResponse.text("released").held { gate.isOpen } }
        let count = 120
        var connections: [RawHTTPConnection] = []
        for _ in 0..<count {
            let connection = try RawHTTPConnection(port: server.port)
            try await connection.send("GET /hold HTTP/1.1\r\nHost: h\r\n\r\n")
            connections.append(connection)
        }
        #expect(await server.waitUntil { $0.activeRequests == count })
        gate.open()
        for connection in connections {
            #expect(try await connection.readResponse().text == "released")
        }
        #expect(await server.waitUntil { $0.activeRequests == 0 })
        let stats = server.stats
        #expect(stats.peakConnections == count)
        #expect(stats.peakActiveRequests == count)
        #expect(stats.totalConnections == count)
        #expect(stats.requestCount == count)
        #expect(stats.abortedRequests == 0)
    }

    @Test("Sequential requests on one connection never overlap: peaks stay at one")
    func sequentialPeaks() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        for _ in 0..<5 {
            try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
            _ = try await connection.readResponse()
        }
        #expect(server.stats.peakConnections == 1)
        #expect(server.stats.peakActiveRequests == 1)
        #expect(server.stats.requestCount == 5)
    }

    @Test("A client that disconnects during /delay is seen at once and counted as aborted")
    func abortedDuringDelay() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The client runs on a thread of its own: a busy cooperative pool cannot hold it until the delay is over.
        let closedWhileActive = try await offThePool {
            let connection = try BlockingHTTPConnection(port: server.port)
            try connection.send("GET /delay/30 HTTP/1.1\r\nHost: h\r\n\r\n")
            let active = Self.blockingWait(on: server) { $0.activeRequests == 1 }
            connection.close()
            return active
        }
        #expect(closedWhileActive)
        // Counted as aborted: the server saw the client leave before the 30 s delay ended.
        #expect(await server.waitUntil { $0.abortedRequests == 1 })
        #expect(await server.waitUntil { $0.openConnections == 0 && $0.activeRequests == 0 })
        #expect(server.stats.requestCount == 1)
    }

    @Test("A client that disconnects during a streamed response is counted as aborted")
    func abortedDuringStream() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Thirty seconds of drip, read and left on a thread of its own, so the client leaves long before the end.
        let statusLine = try await offThePool {
            let connection = try BlockingHTTPConnection(port: server.port)
            try connection.send("GET /drip?numbytes=100&duration=30 HTTP/1.1\r\nHost: h\r\n\r\n")
            defer { connection.close() }
            return try connection.readLine()
        }
        #expect(statusLine == "HTTP/1.1 200 OK")
        #expect(await server.waitUntil { $0.abortedRequests == 1 })
        #expect(await server.waitUntil { $0.openConnections == 0 && $0.activeRequests == 0 })
    }

    @Test("A streaming handler's flush() reports the client leaving, and the request counts as aborted")
    func flushSeesDisconnect() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let flushes = Locked(0)
        server.route("/ticks") { _ in
            TestResponse(
                body: .stream { writer in
                    try writer.write("tick\n")
                    while true {
                        try writer.flush()
                        flushes.withLock { $0 += 1 }
                        Thread.sleep(forTimeInterval: 0.005)
                    }
                })
        }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /ticks HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try await connection.readLine() == "HTTP/1.1 200 OK")
        #expect(await server.waitUntil { _ in flushes.withLock { $0 } > 0 })
        await connection.close()
        #expect(await server.waitUntil { $0.abortedRequests == 1 && $0.activeRequests == 0 })
    }

    @Test("resetStats zeroes the counters and waitForRequests sees new arrivals")
    func resetAndWait() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = try await connection.readResponse()
        #expect(await server.waitUntil { $0.activeRequests == 0 })
        server.resetStats()
        server.clearRequests()
        var expected = TestServer.Stats()
        expected.openConnections = 1
        expected.peakConnections = 1
        #expect(server.stats == expected)
        #expect(server.requests.isEmpty)
        #expect(await server.waitForRequests(count: 1, timeout: .milliseconds(50)) == false)
        try await connection.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await server.waitForRequests(count: 1, timeout: .seconds(120)))
    }

    @Test("stop() closes the listener and every connection, frees the port, and is idempotent")
    func stopReleasesEverything() async throws {
        // Both connections stay open however long a busy machine takes: no keep-alive timeout, a held response.
        let server = try TestServer { $0.keepAliveTimeout = .seconds(600) }
        let port = server.port
        let idle = try RawHTTPConnection(port: port)
        try await idle.send("GET /get HTTP/1.1\r\nHost: h\r\n\r\n")
        _ = try await idle.readResponse()
        let blocked = try RawHTTPConnection(port: port)
        try await blocked.send("GET /delay/300 HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(await server.waitUntil { $0.requestCount == 2 && $0.openConnections == 2 })
        #if os(Linux)
        let before = serverSocketInodes(port: port)
        #expect(before.count >= 3)  // the listener and two accepted connections
        #endif
        server.stop()
        server.stop()
        await server.shutdown()
        #expect(await idle.isClosedByServer())
        #expect(await blocked.isClosedByServer())
        #if os(Linux)
        #expect(before.intersection(openSocketInodes()).isEmpty)
        #else
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(port: port) }
        #endif
    }

    @Test("Dropping the last reference stops the server, which closes its listener by itself")
    func deinitStops() async throws {
        var server: TestServer? = try TestServer()
        let port = try #require(server?.port)
        #if os(Linux)
        let before = serverSocketInodes(port: port)
        #expect(before.count == 1)
        server = nil
        var stillOpen = before.intersection(openSocketInodes())
        for _ in 0..<600 where !stillOpen.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            stillOpen = before.intersection(openSocketInodes())
        }
        #expect(stillOpen.isEmpty)
        #else
        server = nil
        try await Task.sleep(for: .seconds(1))
        #expect(throws: RawHTTPConnection.Failure.self) { try RawHTTPConnection(port: port) }
        #endif
    }

    /// Polls `server`'s counters on the calling thread (never a task's) until `condition` holds, for at most 30 s.
    private static func blockingWait(on server: TestServer, _ condition: (TestServer.Stats) -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition(server.stats) {
            guard ContinuousClock.now < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }

    #if os(Linux)
    /// The inodes of this process's open sockets whose local port is `port` (read from `/proc/net/tcp`).
    ///
    /// Inodes, unlike port numbers and descriptor numbers, are never reused by a server another test starts
    /// meanwhile, so this check holds while tests run in parallel.
    private func serverSocketInodes(port: Int) -> Set<String> {
        let handle = FileHandle(forReadingAtPath: "/proc/net/tcp")
        defer { try? handle?.close() }
        let table = String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
        let hexPort = String(format: ":%04X", port)
        let inodes = table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[1].hasSuffix(hexPort) else { return nil }
            return String(fields[9])
        }
        return Set(inodes).intersection(openSocketInodes())
    }

    /// The inodes of every socket this process has open, from the links in `/proc/self/fd`.
    private func openSocketInodes() -> Set<String> {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            entries.compactMap { entry -> String? in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst("socket:[".count).dropLast())
            })
    }
    #endif
}
