import Foundation
import RequestKit
import RequestKitTesting
import Testing

/// Guarantee 8: durations from users and servers, however large, never crash the process.
///
/// A duration converted with a trapping initializer kills the whole process, so each cell runs in an exit test:
/// a child process whose crash fails only that cell, with the crash message in the failure.
@Suite("Pipeline: huge and infinite durations")
struct PipelineDurationTests {
    @Test(
        "Timeout(1e11) and Timeout(1e11, for: .resource) are accepted and the request succeeds",
        arguments: Verb.allCases, TransportKind.allCases)
    func hugeTimeouts(_ verb: Verb, _ transport: TransportKind) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [verb, transport] in
            await Self.exitOnProblems {
                [
                    await Self.succeeds(verb, transport, with: Timeout(1e11), "Timeout(1e11)"),
                    await Self.succeeds(verb, transport, with: Timeout(1e11, for: .resource), "Timeout(1e11, .resource)"),
                ].flatMap { $0 }
            }
        }
        Self.report(result)
    }

    @Test("Timeout(.infinity) means no limit, and the request succeeds", arguments: Verb.allCases, TransportKind.allCases)
    func infiniteTimeout(_ verb: Verb, _ transport: TransportKind) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [verb, transport] in
            await Self.exitOnProblems {
                await Self.succeeds(verb, transport, with: Timeout(.infinity), "Timeout(.infinity)")
            }
        }
        Self.report(result)
    }

    @Test(
        "Retry-After: 20000000000 with an infinite maximum delay, and .retry(after: .infinity), time out at the deadline",
        arguments: Verb.allCases, TransportKind.allCases)
    func endlessRetryDelays(_ verb: Verb, _ transport: TransportKind) async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            [verb, transport] in
            await Self.exitOnProblems {
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
        Self.report(result)
    }

    /// Sends the verb to the final route with `timeout`; returns what went wrong, if anything.
    static func succeeds(
        _ verb: Verb, _ transport: TransportKind, with timeout: Timeout, _ label: String
    ) async -> [String] {
        let server: TestServer
        do {
            server = try TestServer()
        } catch {
            return ["\(label): the server did not start: \(error)"]
        }
        defer { server.stop() }
        PipelineRoutes.final(on: server, at: "/target")
        let call = PipelineCall(server: server, target: "/target", components: [timeout])
        let observed = await verb.perform(call, on: transport.shared)
        let isFinal =
            observed.error == nil && observed.otherFailure == nil && observed.body == verb.expectedBody
            && (!verb.showsStatus || observed.status == 200)
        return isFinal ? [] : ["\(label): expected the final answer, got \(observed)"]
    }

    /// Sends the verb under `Timeout(1, for: .resource)` to a route answering with `answer`; returns what went
    /// wrong unless the verb failed with `.timedOut`.
    static func timesOut(
        _ verb: Verb, _ transport: TransportKind, _ label: String, with components: [any RequestComponent],
        answer: @escaping @Sendable (TestRequest) -> TestResponse
    ) async -> [String] {
        let server: TestServer
        do {
            server = try TestServer()
        } catch {
            return ["\(label): the server did not start: \(error)"]
        }
        defer { server.stop() }
        server.route("/target", answer)
        let call = PipelineCall(
            server: server, target: "/target", components: components + [Timeout(1, for: .resource)])
        let observed = await verb.perform(call, on: transport.shared)
        return observed.error?.kind == .timedOut ? [] : ["\(label): expected .timedOut, got \(observed)"]
    }

    /// In the exit test's child process: prints the problems and exits with a failure when there are any.
    static func exitOnProblems(_ check: () async -> [String]) async {
        let problems = await check()
        guard !problems.isEmpty else { return }
        FileHandle.standardError.write(Data((problems.joined(separator: "\n") + "\n").utf8))
        exit(EXIT_FAILURE)
    }

    /// Records what the child process printed when it did not exit successfully: the problems, or the crash.
    static func report(_ result: ExitTest.Result?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let result, result.exitStatus != .exitCode(EXIT_SUCCESS) else { return }
        let output = String(decoding: result.standardErrorContent, as: UTF8.self)
        let lines = output.split(separator: "\n").filter { !$0.hasPrefix("◇") && !$0.hasPrefix("↳") }
        Issue.record("\(result.exitStatus): \(lines.suffix(8).joined(separator: "\n"))", sourceLocation: sourceLocation)
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
