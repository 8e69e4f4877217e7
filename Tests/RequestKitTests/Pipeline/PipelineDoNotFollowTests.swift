import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 2: `Redirects(.doNotFollow)` hands the caller the 3xx and never requests its target.
///
/// The convention: with the default validation, the verbs that return every response (`send`, an upload through
/// `send()`, `client.send`) return the 302; every other verb fails with `.unacceptableStatus` whose response is
/// the 302 with its `Location` intact, as it would for a 404.
@Suite("Pipeline: not following redirects", .wallClock)
struct PipelineDoNotFollowTests {
    @Test(
        "Redirects(.doNotFollow) gives the caller the 302 with its Location, and the target is never requested",
        arguments: Verb.allCases, TransportKind.allCases)
    func doNotFollow(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }
        PipelineRoutes.final(on: server, at: "/target")
        let call = PipelineCall(
            server: server, target: PipelineRoutes.redirect(to: "/target"), components: [Redirects(.doNotFollow)])

        let observed = await verb.perform(call, on: transport.shared)

        #expect(server.requests.map(\.path) == ["/redirect-to"])
        if verb.validates {
            #expect(observed.error?.kind == .unacceptableStatus, "\(observed)")
        } else {
            #expect(observed.error == nil && observed.otherFailure == nil, "\(observed)")
        }
        #expect(observed.status == 302, "\(observed)")
        #expect(observed.headers?["Location"] == "/target", "\(observed)")
    }
}
