#if Metrics
import CoreMetrics
import Foundation
import MetricsTestKit
import RequestKit
import RequestKitMetrics
import RequestKitTesting
import Testing

@Suite("Metrics monitor (swift-metrics)")
struct MetricsMonitorTests {
    @Test("A response records one duration with OpenTelemetry's dimensions, and the active requests go up then down")
    func recordsResponse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let metrics = TestMetrics()
        let base = [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("url.scheme", "http"),
        ]
        // The handler answers with the number of active requests while its own is in flight.
        server.route("/active") { _ in
            .text((try? metrics.expectMeter(MetricsMonitor.activeRequests, base).lastValue).map { "\($0)" } ?? "none")
        }
        let response = try await Request {
            Url(server.url("/active?api_key=secret"))
            Monitor(MetricsMonitor(factory: metrics))
        }.send()
        #expect(try response.string() == "1.0")

        let timer = try metrics.expectTimer(
            MetricsMonitor.requestDuration,
            base + [("http.response.status_code", "200"), ("network.protocol.version", "1.1")])
        #expect(timer.values.count == 1)
        #expect((timer.values.first ?? 0) > 0)
        #expect(timer.displayUnit == .seconds)
        #expect(try metrics.expectMeter(MetricsMonitor.activeRequests, base).values == [1, 0])
        #expect(metrics.timers.count == 1)
        #expect(metrics.meters.count == 1)
    }

    @Test("Requests through one monitor record on the same instruments, one per set of dimensions")
    func reusesInstruments() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        server.route("/missing") { _ in .text("no", status: 404) }
        let metrics = TestMetrics()
        let client = RequestKit.Client(baseURL: server.url("/")) { $0.monitors = [MetricsMonitor(factory: metrics)] }
        for path in ["hello", "hello", "missing", "hello"] { _ = try await client.send(Request { Path(path) }) }
        let base = [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("url.scheme", "http"),
        ]
        let success = try metrics.expectTimer(
            MetricsMonitor.requestDuration,
            base + [("http.response.status_code", "200"), ("network.protocol.version", "1.1")])
        let missing = try metrics.expectTimer(
            MetricsMonitor.requestDuration,
            base + [("http.response.status_code", "404"), ("network.protocol.version", "1.1"), ("error.type", "404")])
        #expect(success.values.count == 3)
        #expect(missing.values.count == 1)
        #expect(try metrics.expectMeter(MetricsMonitor.activeRequests, base).values == [1, 0, 1, 0, 1, 0, 1, 0])
        #expect(metrics.timers.count == 2)
        #expect(metrics.meters.count == 1)
    }

    @Test("With the no-op backend the monitor records no event; with another, each attempt's start and outcome")
    func monitoredEvents() {
        #expect(MetricsMonitor(factory: NOOPMetricsHandler.instance).monitoredEvents.isEmpty)
        #expect(
            MetricsMonitor(factory: TestMetrics()).monitoredEvents == [
                .requestStarted, .responseReceived, .requestFailed,
            ])
    }

    @Test("A 5xx response has its status as the error type; a failure has its kind, once per attempt")
    func recordsErrors() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/broken", method: "POST") { _ in .text("no", status: 503) }
        let metrics = TestMetrics()
        _ = try await Request {
            Url(server.url("/broken"))
            Method(.post)
            Monitor(MetricsMonitor(factory: metrics))
        }.send()
        let post = [
            ("http.request.method", "POST"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("url.scheme", "http"),
        ]
        let failed = try metrics.expectTimer(
            MetricsMonitor.requestDuration,
            post + [
                ("http.response.status_code", "503"), ("network.protocol.version", "1.1"), ("error.type", "503"),
            ])
        #expect(failed.values.count == 1)

        _ = try? await Request {
            Url(server.url("/fault/close"))
            Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0.01, usesJitter: false))
            Monitor(MetricsMonitor(factory: metrics))
        }.send()
        let get = [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("url.scheme", "http"),
        ]
        // The server accepted the connection, so the protocol is known, then closed it without answering.
        let transport = try metrics.expectTimer(
            MetricsMonitor.requestDuration, get + [("network.protocol.version", "1.1"), ("error.type", "transport")])
        #expect(transport.values.count == 2)
        #expect(try metrics.expectMeter(MetricsMonitor.activeRequests, get).values == [1, 0, 1, 0])
        #expect(metrics.timers.count == 2)
    }
}
#endif
