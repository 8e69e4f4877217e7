#if Logging
import Foundation
import InMemoryLogging
import Logging
import RequestKit
import RequestKitLogging
import RequestKitTesting
import Testing

@Suite("Logging monitor (swift-log)")
struct LoggingMonitorTests {
    /// A logger at `level` whose records `handler` keeps.
    private func logger(_ handler: InMemoryLogHandler, level: Logger.Level = .debug) -> Logger {
        var logger = Logger(label: "requestkit.tests", factory: { _ in handler })
        logger.logLevel = level
        return logger
    }

    /// The metadata of `entry` as strings, leaving out the keys whose values vary from run to run.
    private func stable(_ entry: InMemoryLogHandler.Entry) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in entry.metadata
        where !["requestkit.duration", "requestkit.phases", "requestkit.bytes_sent", "requestkit.bytes_received"]
            .contains(key)
        {
            result[key] = value.description
        }
        return result
    }

    @Test("A response is logged with the method, the redacted URL, the server, status, attempt, body size and protocol")
    func logsResponse() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        let handler = InMemoryLogHandler()
        let url = "http://user:hunter22@127.0.0.1:\(server.port)/hello?api_key=hunter33&page=2"
        let response = try await Request {
            Url(url)
            Header.Any(key: "X-Api-Key", value: "hunter44")
            Monitor(LoggingMonitor(logger: logger(handler)))
        }.send()
        #expect(response.statusCode == 200)

        let entries = handler.entries
        #expect(entries.map(\.level) == [.debug, .info])
        #expect(entries.map(\.message.description) == ["request", "response"])
        // The URL's credentials went into an Authorization field, which is never logged; the URL is logged as sent.
        let redacted = "http://127.0.0.1:\(server.port)/hello?api_key=<redacted>&page=2"
        let request = [
            "http.request.method": "GET", "url.full": redacted, "server.address": "127.0.0.1",
            "server.port": "\(server.port)", "requestkit.attempt": "1",
        ]
        #expect(stable(entries[0]) == request)
        #expect(
            stable(entries[1])
                == request.merging(
                    [
                        "http.response.status_code": "200", "http.response.body.size": "5",
                        "network.protocol.version": "1.1",
                    ], uniquingKeysWith: { $1 }))
        let attempt = try #require(response.metrics.attempts.last)
        #expect(entries[1].metadata["requestkit.bytes_sent"]?.description == attempt.bytesSent.map { "\($0)" })
        #expect(entries[1].metadata["requestkit.bytes_received"]?.description == attempt.bytesReceived.map { "\($0)" })
        guard case .dictionary(let phases) = entries[1].metadata["requestkit.phases"] else {
            Issue.record("no phases in \(entries[1].metadata)")
            return
        }
        #expect(Set(phases.keys).isSubset(of: ["pool", "dns", "connect", "tls", "send", "wait", "body"]))
        #expect(phases.keys.contains("wait"))
        #expect(!phases.keys.contains("tls"))
        #expect(phases.values.allSatisfy { Double($0.description).map { $0 >= 0 } ?? false })
        let duration = try #require(entries[1].metadata["requestkit.duration"].flatMap { Double($0.description) })
        #expect(duration > 0)
        let everything = entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("hunter"))
    }

    @Test("A 4xx or 5xx response is logged at the response level with its status as the error type")
    func logsErrorStatus() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/missing") { _ in .text("no", status: 404) }
        let handler = InMemoryLogHandler()
        _ = try await Request {
            Url(server.url("/missing"))
            Monitor(LoggingMonitor(logger: logger(handler, level: .info), level: .notice))
        }.send()
        let entries = handler.entries
        #expect(entries.map(\.level) == [.notice])
        #expect(entries.first?.metadata["http.response.status_code"] == "404")
        #expect(entries.first?.metadata["error.type"] == "404")
    }

    @Test("Each failed attempt and each retry is logged, with the error's kind and the attempt number")
    func logsFailuresAndRetries() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let handler = InMemoryLogHandler()
        let url = server.url("/fault/close?token=hunter55")
        _ = try? await Request {
            Url(url)
            Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0.01, usesJitter: false))
            Monitor(LoggingMonitor(logger: logger(handler), failureLevel: .error))
        }.send()
        let entries = handler.entries
        #expect(
            entries.map(\.message.description) == [
                "request", "request failed", "retrying", "request", "request failed",
            ])
        #expect(entries.map(\.level) == [.debug, .error, .debug, .debug, .error])
        #expect(entries.map { $0.metadata["requestkit.attempt"]?.description } == ["1", "1", "2", "2", "2"])
        #expect(entries[1].metadata["error.type"] == "transport")
        #expect(entries[4].metadata["error.type"] == "transport")
        #expect(entries[2].metadata["requestkit.retry_delay"] == "0.010000")
        let redacted = "http://127.0.0.1:\(server.port)/fault/close?token=<redacted>"
        #expect(entries.allSatisfy { $0.metadata["url.full"]?.description == redacted })
        let message = try #require(entries[1].metadata["requestkit.error"]?.description)
        #expect(!message.isEmpty)
        #expect(!entries.map { "\($0.metadata)" }.joined().contains("hunter55"))
    }

    @Test("Records below the logger's level are not made")
    func respectsLogLevel() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        let handler = InMemoryLogHandler()
        _ = try await Request {
            Url(server.url("/hello"))
            Monitor(LoggingMonitor(logger: logger(handler, level: .warning)))
        }.send()
        #expect(handler.entries.isEmpty)
    }

    @Test("The monitor records the events the logger's level lets through, and none on a no-op handler")
    func monitoredEventsFollowTheLevel() {
        let handler = InMemoryLogHandler()
        #expect(
            LoggingMonitor(logger: logger(handler, level: .debug)).monitoredEvents
                == [.requestStarted, .responseReceived, .requestFailed, .requestRetrying])
        #expect(LoggingMonitor(logger: logger(handler, level: .info)).monitoredEvents == .outcomes)
        #expect(LoggingMonitor(logger: logger(handler, level: .warning)).monitoredEvents == .requestFailed)
        #expect(
            LoggingMonitor(logger: logger(handler, level: .critical), level: .error, failureLevel: .error)
                .monitoredEvents.isEmpty)
        let silent = Logger(label: "requestkit.tests") { _ in SwiftLogNoOpLogHandler() }
        #expect(LoggingMonitor(logger: silent).monitoredEvents.isEmpty)
    }

    @Test("A method outside the known set is logged as _OTHER, with the original beside it")
    func logsOtherMethod() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/hello") { _ in .text("hello") }
        let handler = InMemoryLogHandler()
        _ = try await Request {
            Url(server.url("/hello"))
            Method("PURGE")
            Monitor(LoggingMonitor(logger: logger(handler, level: .info)))
        }.send()
        #expect(handler.entries.first?.metadata["http.request.method"] == "_OTHER")
        #expect(handler.entries.first?.metadata["http.request.method_original"] == "PURGE")
    }
}
#endif
