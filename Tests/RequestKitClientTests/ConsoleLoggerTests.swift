import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Console logger", .wallClock)
struct ConsoleLoggerTests {
    /// The lines with every duration replaced by `#.###`.
    private func masked(_ lines: [String]) -> [String] {
        lines.map { $0.replacingOccurrences(of: #"[0-9]+\.[0-9]{3} s"#, with: "#.### s", options: .regularExpression) }
    }

    @Test("It prints the redacted curl command, then status, size and duration", arguments: WireTransport.all)
    func logsRequestAndResponse(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        let log = Log()
        let client = Client(baseURL: server.url("/")) { configuration in
            configuration.transport = transport.transport
            configuration.defaults = [Header.Authorization(.bearer("secret")), Cookie("session", "abc")]
            configuration.monitors = [ConsoleLogger(output: log.add)]
        }
        _ = try await client.send(
            Request {
                Path("hello"); Header.UserAgent("tests/1")
            })
        let url = server.url("/hello").absoluteString
        #expect(
            masked(log.entries) == [
                "→ curl '\(url)' -H 'Authorization: <redacted>' -H 'Cookie: <redacted>' -H 'User-Agent: tests/1'",
                "← 200 OK, 5 bytes in #.### s",
            ])
        #expect(!log.entries.joined().contains("secret"))
    }

    @Test("Retries and failures are logged")
    func logsRetriesAndFailures() async throws {
        let down = try RefusingPort()
        let url = down.url("/gone")
        let log = Log()
        _ = try? await Request {
            Url(url)
            Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0.01, usesJitter: false))
            Monitor(ConsoleLogger(output: log.add))
        }.send()
        let lines = masked(log.entries)
        #expect(lines.count == 5)
        #expect(lines[0] == "→ curl '\(url.absoluteString)'")
        #expect(lines[1].hasPrefix("✗ transport after #.### s: Connection refused by 127.0.0.1 port "))
        #expect(lines[2] == "↻ retrying in #.### s (attempt 2)")
        #expect(lines[3] == "→ curl '\(url.absoluteString)' (attempt 2)")
        #expect(lines[4].hasPrefix("✗ transport after #.### s"))
    }
}
