import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 7: a request's timeout also covers the wait for a pooled connection.
@Suite("Pipeline: timeouts cover the wait for a connection", .wallClock)
struct PipelinePoolWaitTests {
    @Test(
        "With the only connection (and its only HTTP/2 stream) held by an open stream, a request with Timeout(1) to that host times out",
        arguments: Verb.allCases, TransportKind.allCases)
    func timeoutCoversPoolWait(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server(streamsPerConnection: 1)
        defer { transport.finish(server) }
        PipelineRoutes.final(on: server, at: "/target")
        // A byte a second keeps the holder's idle timeout from closing the connection, however long a starved
        // machine takes to send the second request; the server's loop plays the chunks, so the stream holds no thread.
        server.route("/hold") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .chunked(
                    [Data("held".utf8)] + Array(repeating: Data(".".utf8), count: 300), interval: .seconds(1)))
        }
        let limited = transport.limited(toConnectionsPerHost: 1)
        let holder = Task {
            let held = try await Request {
                Url(server.url("/hold")); Using(limited)
            }.stream()
            for try await _ in held.body {}
        }
        defer { holder.cancel() }
        try #require(await server.waitForRequests(count: 1, timeout: .seconds(120)), "the stream never opened")

        let call = PipelineCall(server: server, target: "/target", components: [Timeout(1)])
        let observed = await verb.perform(call, on: limited)

        #expect(observed.error?.kind == .timedOut, "\(observed)")
    }
}
