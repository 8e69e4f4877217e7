import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Monitored events", .timeLimit(.minutes(5)), .wallClock)
struct MonitoredEventsTests {
    /// A route answering 503 once, then 200.
    private func flaky(_ server: TestServer) {
        let counter = Counter()
        server.route("/flaky") { _ in counter.next() <= 1 ? TestResponse(status: 503) : .text("done") }
    }

    @Test("A monitor is called for the events it records only", arguments: WireTransport.all)
    func callsRecordedEventsOnly(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        flaky(server)
        let everything = Log()
        let outcomes = Log()
        let retries = Log()
        let client = Client(baseURL: server.url("/")) { configuration in
            configuration.transport = transport.transport
            configuration.retryPolicy = .exponential(maxAttempts: 2, baseDelay: 0.01)
            configuration.monitors = [
                EventRecorder(log: everything), EventRecorder(log: outcomes, events: .outcomes),
                EventRecorder(log: retries, events: [.requestStarted, .requestRetrying]),
            ]
        }
        #expect(try await client.string(Request { Path("flaky") }) == "done")
        #expect(
            everything.entries == [
                "start 1 GET /flaky", "response 1 503", "retry 2", "start 2 GET /flaky", "response 2 200",
            ])
        #expect(outcomes.entries == ["response 1 503", "response 2 200"])
        #expect(retries.entries == ["start 1 GET /flaky", "retry 2", "start 2 GET /flaky"])
    }

    @Test("A monitor that records no event is never called, and a failure reaches only those that record it")
    func recordsNothing() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        let silent = Log()
        let failures = Log()
        let response = try await Request {
            Url(server.url("/hello"))
            Monitor(EventRecorder(log: silent, events: []))
            Monitor(EventRecorder(log: failures, events: .requestFailed))
        }.send()
        #expect(response.statusCode == 200)
        #expect(silent.entries.isEmpty)
        #expect(failures.entries.isEmpty)

        _ = try? await Request {
            Url(server.url("/fault/close"))
            Monitor(EventRecorder(log: silent, events: []))
            Monitor(EventRecorder(log: failures, events: .requestFailed))
        }.send()
        #expect(silent.entries.isEmpty)
        #expect(failures.entries == ["failed 1 transport"])
    }

    @Test("All is every event, and the default of a monitor that says nothing")
    func defaultIsAll() {
        struct Plain: EventMonitor {}
        #expect(Plain().monitoredEvents == .all)
        #expect(MonitoredEvents.all.isSuperset(of: [.requestStarted, .requestFinished, .cacheConsulted]))
        #expect(MonitoredEvents.outcomes == [.responseReceived, .requestFailed])
        #expect(MonitoredEvents.all.rawValue == 0b111_1111)
    }
}
