import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 3: what a redirect does to the method and body of a POST.
@Suite("Pipeline: methods and bodies across redirects", .wallClock)
struct PipelineRedirectMethodTests {
    static let body = Data("hello".utf8)

    /// A POST of "hello" to `/redirect-to`, answered with `status` and a redirect to `/target/{status}`.
    static func post(on server: TestServer, status: Int) -> PipelineCall {
        PipelineRoutes.final(on: server, at: "/target/\(status)")
        return PipelineCall(
            server: server, target: PipelineRoutes.redirect(to: "/target/\(status)", status: status), method: .post,
            payload: .bytes(body))
    }

    @Test("307 and 308 send the same method and body again", arguments: Verb.allCases, TransportKind.allCases)
    func keepMethodAndBody(_ verb: Verb, _ transport: TransportKind) async throws {
        for status in [307, 308] {
            let server = try transport.server()
            defer { transport.finish(server) }

            let observed = await verb.perform(Self.post(on: server, status: status), on: transport.shared)

            PipelineRoutes.expectFinalAnswer(observed, from: verb, "after a \(status)")
            let targets = server.requests.filter { $0.path == "/target/\(status)" }
            #expect(targets.map(\.method) == ["POST"], "after a \(status)")
            #expect(targets.map(\.bodyText) == ["hello"], "after a \(status)")
        }
    }

    @Test(
        "303 turns a POST into a GET with no body and no Content-Type", arguments: Verb.allCases, TransportKind.allCases
    )
    func seeOther(_ verb: Verb, _ transport: TransportKind) async throws {
        let server = try transport.server()
        defer { transport.finish(server) }

        let observed = await verb.perform(Self.post(on: server, status: 303), on: transport.shared)

        PipelineRoutes.expectFinalAnswer(observed, from: verb, "after a 303")
        let targets = server.requests.filter { $0.path == "/target/303" }
        #expect(targets.map(\.method) == ["GET"])
        #expect(targets.map(\.body) == [Data()])
        #expect(targets.first?.header("Content-Type") == nil)
    }

    @Test("301 and 302 turn a POST into a GET with no body", arguments: Verb.allCases, TransportKind.allCases)
    func movedOrFound(_ verb: Verb, _ transport: TransportKind) async throws {
        for status in [301, 302] {
            let server = try transport.server()
            defer { transport.finish(server) }

            let observed = await verb.perform(Self.post(on: server, status: status), on: transport.shared)

            PipelineRoutes.expectFinalAnswer(observed, from: verb, "after a \(status)")
            let targets = server.requests.filter { $0.path == "/target/\(status)" }
            #expect(targets.map(\.method) == ["GET"], "after a \(status)")
            #expect(targets.map(\.body) == [Data()], "after a \(status)")
        }
    }
}
