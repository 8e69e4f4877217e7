import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 6: a header with CR, LF or NUL that appears after the request was built (from an interceptor, the
/// cookie jar, a body's or a multipart part's content type) fails the request before anything is sent.
@Suite("Pipeline: headers checked where they are sent", .wallClock)
struct PipelineHeaderInjectionTests {
    static let injectedType = MediaType("text/plain\r\nX-Injected: yes")

    /// One way to get a bad header into a request, and the name the error must mention.
    struct Injection: Sendable {
        let label: String
        let names: [String]
        let method: HTTPMethod?
        let payload: PipelineCall.Payload?
        let components: @Sendable (TestServer) -> [any RequestComponent]
    }

    static let injections: [Injection] = [
        Injection(label: "an interceptor's header name with CR LF", names: ["X-T"], method: nil, payload: nil) { _ in
            [Intercept(HeaderSetter(name: "X-T\r\nX-Injected", value: "yes"))]
        },
        Injection(
            label: "a body's content type with CR LF", names: ["Content-Type"], method: .post,
            payload: .bytes(Data("hi".utf8), contentType: injectedType)
        ) { _ in [] },
        Injection(
            label: "a multipart part's type with CR LF", names: ["Content-Type", "\"file\""], method: .post,
            payload: .formPart(Data("hi".utf8), type: injectedType)
        ) { _ in [] },
    ]

    /// Values that Foundation on Linux drops as they are set (`URLRequest.setValue` discards a value with CR, LF or
    /// NUL), and a cookie the jar refuses to store: they cannot be reported, but must never reach the wire.
    static let droppedBeforeRequestKitSeesThem: [Injection] = [
        Injection(label: "an interceptor's header value with LF", names: ["X-T"], method: nil, payload: nil) { _ in
            [Intercept(HeaderSetter(name: "X-T", value: "a\nX-Injected: yes"))]
        },
        Injection(label: "an interceptor's header value with NUL", names: ["X-T"], method: nil, payload: nil) { _ in
            [Intercept(HeaderSetter(name: "X-T", value: "a\0b"))]
        },
        Injection(label: "a cookie jar's cookie with CR LF", names: ["Cookie"], method: nil, payload: nil) { server in
            let jar = CookieJar()
            jar.store([ResponseCookie(name: "session", value: "a\r\nX-Injected: yes")], from: server.url("/"))
            return [UseCookies(jar)]
        },
    ]

    @Test(
        "A header value with CR, LF or NUL never reaches the wire: rejected, or dropped before it is set",
        arguments: Verb.allCases, TransportKind.allCases)
    func neverOnTheWire(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }
        PipelineRoutes.final(on: server, at: "/dropped/*")
        for (index, injection) in Self.droppedBeforeRequestKitSeesThem.enumerated() {
            let call = PipelineCall(
                server: server, target: "/dropped/\(index)", method: injection.method, payload: injection.payload,
                components: injection.components(server))
            let observed = await verb.perform(call, on: transport.shared)
            if let error = observed.error, error.kind != .invalidRequest {
                Issue.record("\(injection.label): expected success or .invalidRequest, got \(observed)")
            }
        }
        let leaked = server.requests.filter { request in
            request.headers.contains { ["x-t", "x-injected", "cookie"].contains($0.name.lowercased()) }
        }
        #expect(leaked.isEmpty, "\(leaked.map { "\($0.path) \($0.headers)" })")
        #expect(server.stats.rejectedRequests == 0)
    }

    @Test(
        "A header with CR, LF or NUL added after building is an invalid request, and nothing reaches the server",
        arguments: Verb.allCases, TransportKind.allCases)
    func rejectedBeforeSending(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }
        PipelineRoutes.final(on: server, at: "/inject/*")
        for (index, injection) in Self.injections.enumerated() {
            let call = PipelineCall(
                server: server, target: "/inject/\(index)", method: injection.method, payload: injection.payload,
                components: injection.components(server))

            let observed = await verb.perform(call, on: transport.shared)

            let description = observed.error?.description ?? ""
            if observed.error?.kind != .invalidRequest || !injection.names.contains(where: { description.contains($0) })
            {
                Issue.record("\(injection.label): expected .invalidRequest naming \(injection.names), got \(observed)")
            }
        }
        // Anything sent would have reached the server by now; it answers at once.
        _ = await server.waitUntil(timeout: .milliseconds(300)) { $0.totalConnections > 0 }
        let seen = server.requests.map { "\($0.method) \($0.path) with headers \($0.headers.map(\.name))" }
        #expect(seen.isEmpty, "the server received \(seen)")
        let stats = server.stats
        #expect(
            stats.totalConnections == 0 && stats.rejectedRequests == 0,
            "\(stats.totalConnections) connections reached the server, \(stats.rejectedRequests) requests rejected as malformed"
        )
    }
}
