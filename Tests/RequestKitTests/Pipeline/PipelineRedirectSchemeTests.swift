import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 4: a redirect may lead only to http or https.
@Suite("Pipeline: redirect schemes", .wallClock)
struct PipelineRedirectSchemeTests {
    /// The kind the pipeline reports a refused redirect with, named by its text until it exists.
    static let redirectRefused = RequestError.Kind("redirectRefused")

    @Test(
        "A redirect to file:, data: or ftp: is refused with a redirectRefused error",
        arguments: Verb.allCases, TransportKind.allCases)
    func nonHTTPTargets(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }
        for location in ["file:///etc/passwd", "data:,x", "ftp://127.0.0.1/x"] {
            let call = PipelineCall(server: server, target: PipelineRoutes.redirect(to: location))

            let observed = await verb.perform(call, on: transport.shared)

            #expect(observed.error?.kind == Self.redirectRefused, "to \(location): \(observed)")
        }
        #expect(server.requests.map(\.path) == ["/redirect-to", "/redirect-to", "/redirect-to"])
    }
}
