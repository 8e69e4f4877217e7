import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 5: watching progress never turns retries off.
@Suite("Pipeline: retry with a progress observer", .wallClock)
struct PipelineRetryTests {
    @Test(
        "A 503 then a 200 gives the caller the 200 after exactly two requests, with DownloadProgress attached",
        arguments: Verb.allCases, TransportKind.allCases)
    func retriesWithProgress(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }
        let attempts = Counter()
        server.route("/flaky") { request in
            attempts.next() == 1 ? .text("busy", status: 503) : PipelineRoutes.answer(request)
        }
        // The upload verb adds its UploadProgress itself.
        let call = PipelineCall(
            server: server, target: "/flaky",
            components: [Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0)), DownloadProgress { _ in }])

        let observed = await verb.perform(call, on: transport.shared)

        PipelineRoutes.expectFinalAnswer(observed, from: verb, "after a 503 and a retry")
        #expect(server.requests.map(\.path) == ["/flaky", "/flaky"])
    }
}
