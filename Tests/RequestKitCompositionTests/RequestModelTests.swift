#if canImport(Observation)
import Foundation
import Observation
import RequestKitComposition
import RequestKitDSL
import RequestKitModel
import RequestKitSending
import RequestKitTestSupport
import RequestKitTesting
import Testing

@MainActor
@Suite("RequestModel: an observable request", .wallClock)
struct RequestModelTests {
    struct Echo: Decodable, Sendable {
        let path: String
        let args: [String: String]
    }

    /// The state as text, for exact comparisons.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    private func describe(_ state: RequestModel<Echo>.State) -> String {
        switch state {
        case .idle: "idle"
        case .loading: "loading"
        case .value(let echo): "value \(echo.path) \(echo.args)"
        case .failure(let error): "failure \(error.kind) \(error.statusCode ?? 0)"
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("refresh moves from idle to loading to the decoded value", arguments: WireTransport.all)
    func refresh(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        // The response waits until the test has seen the model loading, however slow the machine.
        let release = Gate()
        let document = Data(#"{"path":"/held","args":{"x":"1"}}"#.utf8)
        server.route("/held") { _ in
            // A route handler runs on a thread of the server's own, and may wait.
            let deadline = ContinuousClock.now + .seconds(300)
            while !release.isOpen && ContinuousClock.now < deadline { usleep(5_000) }
            return TestResponse.json(document)
        }
        let model = RequestModel(
            AnyRequest<Echo> {
                Url(server.url("/held?x=1")); Using(wire.transport)
            })
        #expect(describe(model.state) == "idle")
        let changes = Log()
        withObservationTracking {
            _ = model.state
        } onChange: {
            changes.add("state will change")
        }
        let refreshing = Task { await model.refresh() }
        #expect(await waitUntil { model.isLoading })
        #expect(describe(model.state) == "loading")
        #expect(model.value == nil)
        release.open()
        await refreshing.value
        #expect(changes.entries == ["state will change"])
        #expect(describe(model.state) == #"value /held ["x": "1"]"#)
        #expect(model.value?.args == ["x": "1"])
        #expect(model.loadCount == 1)
        #expect(!model.isLoading)
        #expect(model.error == nil)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("A failure becomes the state and keeps the last value", arguments: WireTransport.all)
    func failure(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let counter = CallCounter()
        server.route("/sometimes") { _ in
            counter.next() == 1 ? .json(Data(#"{"path":"/sometimes","args":{}}"#.utf8)) : .status(500)
        }
        let model = RequestModel(
            AnyRequest<Echo> {
                Url(server.url("/sometimes")); Using(wire.transport)
            })
        await model.refresh()
        await model.refresh()
        #expect(describe(model.state) == "failure unacceptableStatus 500")
        #expect(model.error?.statusCode == 500)
        #expect(model.value?.path == "/sometimes")
        #expect(model.loadCount == 1)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
    @Test("Polling updates the value once, keeps it on 304s, and stops", arguments: WireTransport.all)
    func polling(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = TestClock()
        let model = RequestModel(
            Request {
                Url(server.url("/etag/model")); Using(wire.transport); UseClock(clock)
            }
        ) { response throws(RequestError) in
            try response.json().path.string ?? ""
        }
        model.startPolling(every: .seconds(30))
        #expect(model.isPolling)
        #expect(await clock.advanceToNextSleeper() == .seconds(30))
        #expect(await clock.advanceToNextSleeper() == .seconds(30))
        #expect(await clock.waitForSleepers(count: 1))  // the third response is in
        #expect(await waitUntil { model.value == "/etag/model" })
        model.stopPolling()
        #expect(!model.isPolling)
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "\"model\"", "\"model\""])
        #expect(model.loadCount == 1)
        if case .value(let path) = model.state {
            #expect(path == "/etag/model")
        } else {
            Issue.record("expected a value, got \(model.state)")
        }
    }

    /// Waits, yielding to the main actor, until `condition` holds or 30 seconds pass.
    private func waitUntil(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<3_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
#endif
