import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Guarantee 8: durations from users and servers, however large, never crash the process.
///
/// A duration converted with a trapping initializer kills the whole process, so each cell runs in an exit test: a
/// child process whose crash fails only that cell (as "Expectation failed: .success → .signal(…)"), and whose
/// issues are reported as the cell's.
@Suite("Pipeline: huge and infinite durations", .wallClock)
struct PipelineDurationTests {
    @Test(
        "Timeout(1e11) and Timeout(1e11, for: .resource) are accepted and the request succeeds",
        arguments: Verb.allCases, TransportKind.allCases)
    func hugeTimeouts(_ verb: Verb, _ transport: TransportKind) async {
        await #expect(processExitsWith: .success) {
            [verb, transport] in
            await Self.recordProblems {
                [
                    await Self.succeeds(verb, transport, with: Timeout(1e11), "Timeout(1e11)"),
                    await Self.succeeds(
                        verb, transport, with: Timeout(1e11, for: .resource), "Timeout(1e11, .resource)"),
                ].flatMap { $0 }
            }
        }
    }

    @Test(
        "Timeout(.infinity) means no limit, and the request succeeds", arguments: Verb.allCases, TransportKind.allCases)
    func infiniteTimeout(_ verb: Verb, _ transport: TransportKind) async {
        await #expect(processExitsWith: .success) {
            [verb, transport] in
            await Self.recordProblems {
                await Self.succeeds(verb, transport, with: Timeout(.infinity), "Timeout(.infinity)")
            }
        }
    }

    @Test(
        "Retry-After: 20000000000 with an infinite maximum delay, and .retry(after: .infinity), time out at the deadline",
        arguments: Verb.allCases, TransportKind.allCases)
    func endlessRetryDelays(_ verb: Verb, _ transport: TransportKind) async {
        await #expect(processExitsWith: .success) {
            [verb, transport] in
            await Self.recordProblems {
                [
                    await Self.timesOut(
                        verb, transport, "a server's Retry-After: 20000000000",
                        with: [Retry(RetryPolicy(maxAttempts: 2, maximumDelay: .infinity))]
                    ) { _ in .text("busy", status: 503).withHeader("Retry-After", "20000000000") },
                    await Self.timesOut(
                        verb, transport, "an interceptor's .retry(after: .infinity)",
                        with: [Intercept(EndlessRetry())], answer: PipelineRoutes.answer),
                ].flatMap { $0 }
            }
        }
    }

    /// Sends the verb to the final route with `timeout`; returns what went wrong, if anything.
    static func succeeds(
        _ verb: Verb, _ transport: TransportKind, with timeout: Timeout, _ label: String
    ) async -> [String] {
        await onServer(label, for: transport) { server in
            PipelineRoutes.final(on: server, at: "/target")
            let call = PipelineCall(server: server, target: "/target", components: [timeout])
            let observed = await verb.perform(call, on: transport.shared)
            let isFinal =
                observed.error == nil && observed.otherFailure == nil && observed.body == verb.expectedBody
                && (!verb.showsStatus || observed.status == 200)
            return isFinal ? [] : ["\(label): expected the final answer, got \(observed)"]
        }
    }

    /// Sends the verb under `Timeout(1, for: .resource)` to a route answering with `answer`; returns what went
    /// wrong unless the verb failed with `.timedOut`.
    static func timesOut(
        _ verb: Verb, _ transport: TransportKind, _ label: String, with components: [any RequestComponent],
        answer: @escaping @Sendable (TestRequest) -> TestResponse
    ) async -> [String] {
        await onServer(label, for: transport) { server in
            server.route("/target", answer)
            let call = PipelineCall(
                server: server, target: "/target", components: components + [Timeout(1, for: .resource)])
            let observed = await verb.perform(call, on: transport.shared)
            return observed.error?.kind == .timedOut ? [] : ["\(label): expected .timedOut, got \(observed)"]
        }
    }

    /// Runs `body` against a fresh server of `kind`; a server that cannot start is the problem reported, and so is a
    /// request that reached it over another HTTP version than the kind's.
    static func onServer(
        _ label: String, for kind: TransportKind, _ body: (TestServer) async -> [String]
    ) async -> [String] {
        let server: TestServer
        do {
            server = try kind.server()
        } catch {
            return ["\(label): the server did not start: \(error)"]
        }
        defer { server.stop() }
        let problems = await body(server)
        let versions = Set(server.requests.map(\.httpVersion)).subtracting([kind.httpVersion])
        return problems + versions.map { "\(label): a request arrived over \($0), not \(kind.httpVersion)" }
    }

    /// In the exit test's child process: records each problem as an issue, which the parent reports for the cell.
    static func recordProblems(_ check: () async -> [String]) async {
        for problem in await check() { Issue.record("\(problem)") }
    }
}

extension TestResponse {
    /// A copy with one more header.
    fileprivate func withHeader(_ name: String, _ value: String) -> TestResponse {
        var response = self
        response.headers.append((name, value))
        return response
    }
}
