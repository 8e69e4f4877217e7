#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import RequestKit
import RequestKitMetrics
import Testing

@testable import RequestKitTesting

@Suite("Open connections (swift-metrics): http.client.open_connections")
struct OpenConnectionsTests {
    @Test("N connections held open count N active, then N idle once answered, and none once closed")
    func countsConnections() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let gate = OpenGate()
        server.route("/hold") { _ in TestResponse.text("released").held { gate.isOpen } }
        let metrics = TestMetrics()
        let transport = NativeTransport { $0.recordOpenConnections(factory: metrics) }
        let client = RequestKit.Client(baseURL: server.baseURL) { $0.transport = transport }
        let base = [
            ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"), ("url.scheme", "http"),
            ("network.protocol.version", "1.1"),
        ]
        let active = base + [("http.connection.state", "active")]
        let idle = base + [("http.connection.state", "idle")]
        func count(_ dimensions: [(String, String)]) -> Int64 {
            (try? metrics.expectMeter(MetricsMonitor.openConnections, dimensions).lastValue).map { Int64($0) } ?? 0
        }

        let connections = 3
        let requests = (0..<connections).map { _ in
            Task { try await client.send(Request { Path("hold") }).string() }
        }
        // Every request has reached the server, so each of their connections is open and carries it.
        #expect(await server.waitUntil { $0.activeRequests == connections })
        #expect(count(active) == Int64(connections))
        #expect(count(idle) == 0)
        #expect(server.stats.totalConnections == connections)

        gate.open()
        for request in requests { #expect(try await request.value == "released") }
        // A connection goes back to the pool on its loop as its response ends, a moment after its caller has it.
        #expect(await waitFor { count(idle) == Int64(connections) && count(active) == 0 })
        #expect(try metrics.expectMeter(MetricsMonitor.openConnections, active).values.max() == Double(connections))

        transport.closeIdleConnections()
        #expect(count(idle) == 0)
        #expect(count(active) == 0)
        #expect(metrics.meters.count == 2)
        #expect(await server.waitUntil { $0.openConnections == 0 })
    }

    @Test("A connection the server closes after answering counts down, and a reused one goes active and idle again")
    func closedByServer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/close") { _ in
            var response = TestResponse.text("bye")
            response.headers.append((name: "Connection", value: "close"))
            return response
        }
        server.route("/keep") { _ in .text("kept") }
        let metrics = TestMetrics()
        let transport = NativeTransport { $0.recordOpenConnections(factory: metrics) }
        let client = RequestKit.Client(baseURL: server.baseURL) { $0.transport = transport }
        let base = [
            ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"), ("url.scheme", "http"),
            ("network.protocol.version", "1.1"),
        ]
        let active = base + [("http.connection.state", "active")]
        let idle = base + [("http.connection.state", "idle")]
        func values(_ dimensions: [(String, String)]) -> [Double] {
            (try? metrics.expectMeter(MetricsMonitor.openConnections, dimensions).values) ?? []
        }

        #expect(try await client.send(Request { Path("close") }).string() == "bye")
        #expect(await waitFor { values(active) == [1, 0] })
        #expect(values(idle).isEmpty)

        #expect(try await client.send(Request { Path("keep") }).string() == "kept")
        #expect(await waitFor { values(idle) == [1] })
        #expect(try await client.send(Request { Path("keep") }).string() == "kept")
        #expect(await waitFor { values(idle) == [1, 0, 1] })
        #expect(values(active) == [1, 0, 1, 0, 1, 0])
        transport.closeIdleConnections()
        #expect(values(idle) == [1, 0, 1, 0])
    }
}

/// Polls `condition` every few milliseconds until it holds or two minutes pass.
private func waitFor(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(120)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// Opened once by the test; the server's hold asks it on its loop.
private final class OpenGate: @unchecked Sendable {
    // Safe: `opened` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var opened = false

    var isOpen: Bool { lock.withLock { opened } }

    func open() { lock.withLock { opened = true } }
}
#endif
