import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 1: credentials never follow a redirect to another origin, and stay on a redirect within one.
@Suite("Pipeline: credentials across redirects", .wallClock)
struct PipelineCredentialTests {
    static let proxyCredentials = "Basic cHJveHk6c2VjcmV0"

    /// Authorization, Cookie and Proxy-Authorization, as a user sets them.
    static let credentials: [any RequestComponent] = [
        Header.Authorization(.bearer("secret")),
        Cookie("session", "abc"),
        Header.Any(key: "Proxy-Authorization", value: proxyCredentials),
    ]

    @Test(
        "A redirect to another origin drops Authorization, Cookie and Proxy-Authorization",
        arguments: Verb.allCases, TransportKind.allCases)
    func crossOrigin(_ verb: Verb, _ transport: TransportKind) async throws {
        let origin = try transport.server()
        defer { transport.finish(origin) }
        let other = try transport.server()
        defer { transport.finish(other) }
        PipelineRoutes.final(on: other, at: "/elsewhere")
        let call = PipelineCall(
            server: origin, target: PipelineRoutes.redirect(to: other.url("/elsewhere").absoluteString),
            components: Self.credentials)

        let observed = await verb.perform(call, on: transport.shared)

        PipelineRoutes.expectFinalAnswer(observed, from: verb, "after the cross-origin redirect")
        #expect(origin.requests.map(\.path) == ["/redirect-to"])
        #expect(other.requests.map(\.path) == ["/elsewhere"])
        for received in other.requests {
            for name in ["Authorization", "Cookie", "Proxy-Authorization"] {
                #expect(
                    received.header(name) == nil,
                    "\(name): \(received.header(name) ?? "") reached the other origin")
            }
        }
    }

    @Test(
        "A redirect within the origin keeps Authorization, Cookie and Proxy-Authorization exactly",
        arguments: Verb.allCases, TransportKind.allCases)
    func sameOrigin(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }
        PipelineRoutes.final(on: server, at: "/here")
        let call = PipelineCall(
            server: server, target: PipelineRoutes.redirect(to: "/here"), components: Self.credentials)

        let observed = await verb.perform(call, on: transport.shared)

        PipelineRoutes.expectFinalAnswer(observed, from: verb, "after the same-origin redirect")
        #expect(server.requests.map(\.path) == ["/redirect-to", "/here"])
        let here = server.requests.last { $0.path == "/here" }
        #expect(here?.header("Authorization") == "Bearer secret")
        #expect(here?.header("Cookie") == "session=abc")
        #expect(here?.header("Proxy-Authorization") == Self.proxyCredentials)
    }
}
