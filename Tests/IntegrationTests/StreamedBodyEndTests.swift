#if Tracing && Metrics
import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import RequestKit
import RequestKitMetrics
import RequestKitTracing
import Testing
import Tracing

@testable import RequestKitTesting

/// A streamed response's spans and duration end with its body. The body is 1 MiB read with a 1 KiB buffer, so that
/// it cannot end before the test reads it: the transport stops reading the socket while the buffer is full.
@Suite("A streamed response's spans and request duration end with its body")
struct StreamedBodyEndTests {
    static let size = 1 << 20

    private func attributes(_ span: FinishedInMemorySpan) -> [String: SpanAttribute] {
        var result: [String: SpanAttribute] = [:]
        span.attributes.forEach { key, value in result[key] = value }
        return result
    }

    private func bigServer() throws -> TestServer {
        let server = try TestServer()
        server.route("/big") { _ in TestResponse.text(String(repeating: "x", count: Self.size)) }
        server.route("/cut") { _ in
            TestResponse.stepped(headers: [("Content-Length", "100")]) {
                AnyIterator([BodyStep.write(Data("partial".utf8)), .pause(.milliseconds(50)), .close].makeIterator())
            }
        }
        return server
    }

    @Test("The spans are open after the head and end, with the status, once the body is read to its end")
    func endsAtBodyEnd() async throws {
        let server = try bigServer()
        defer { server.stop() }
        let tracer = InMemoryTracer()
        let response = try await Request {
            Url(server.url("/big"))
            Traced(tracer: tracer)
        }.stream(bufferLimit: 1024)
        #expect(response.head.statusCode == 200)
        #expect(tracer.finishedSpans.isEmpty)
        #expect(tracer.activeSpans.count == 2)

        var received = 0
        for try await chunk in response { received += chunk.count }
        #expect(received == Self.size)
        // The spans end as the transport finishes the body, on its loop's thread, as the reader reaches its end.
        #expect(await waitFor { tracer.activeSpans.isEmpty })
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        let attempt = try #require(spans.first)
        let span = try #require(spans.last)
        #expect(attempt.parentSpanID == span.spanID)
        for traced in spans {
            #expect(attributes(traced)["http.response.status_code"] == .int64(200))
            #expect(attributes(traced)["error.type"] == nil)
            #expect(traced.status == nil)
            #expect(traced.errors.isEmpty)
        }
    }

    @Test("A body its reader leaves midway ends the spans with a cancellation recorded")
    func endsWhenAbandoned() async throws {
        let server = try bigServer()
        defer { server.stop() }
        let tracer = InMemoryTracer()
        try await readFirstChunk(of: server.url("/big"), tracer: tracer)
        // The stream and its iterator are gone, and the body ends with the last reference to them, which the
        // exchange's task may drop a moment later.
        #expect(await waitFor { tracer.activeSpans.isEmpty })
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        for traced in spans {
            #expect(attributes(traced)["http.response.status_code"] == .int64(200))
            #expect(attributes(traced)["error.type"] == .string("cancelled"))
            #expect(traced.status?.code == .error)
            #expect(traced.errors.count == 1)
            #expect((traced.errors.first?.error as? RequestError)?.kind == .cancelled)
        }
    }

    /// Polls `condition` every few milliseconds until it holds or two minutes pass.
    private func waitFor(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Reads one chunk of `url`'s streamed body, then drops the stream.
    private func readFirstChunk(of url: URL, tracer: InMemoryTracer) async throws {
        let response = try await Request {
            Url(url)
            Traced(tracer: tracer)
        }.stream(bufferLimit: 1024)
        var iterator = response.makeAsyncIterator()
        let first = try await iterator.next()
        #expect((first?.count ?? 0) > 0)
        #expect(tracer.finishedSpans.isEmpty)
    }

    @Test("A body that fails midway ends the spans with its error")
    func endsWhenFailed() async throws {
        let server = try bigServer()
        defer { server.stop() }
        let tracer = InMemoryTracer()
        let response = try await Request {
            Url(server.url("/cut"))
            Traced(tracer: tracer)
        }.stream()
        let error = try await #require(throws: RequestError.self) {
            for try await _ in response {}
        }
        #expect(error.kind == .transport)
        #expect(await waitFor { tracer.activeSpans.isEmpty })
        let spans = tracer.finishedSpans
        #expect(spans.count == 2)
        for traced in spans {
            #expect(attributes(traced)["http.response.status_code"] == .int64(200))
            #expect(attributes(traced)["error.type"] == .string("transport"))
            #expect(traced.status?.code == .error)
            #expect((traced.errors.first?.error as? RequestError)?.kind == .transport)
        }
    }

    @Test("http.client.request.duration and the active request last until the body's end")
    func durationEndsAtBodyEnd() async throws {
        let server = try bigServer()
        defer { server.stop() }
        let metrics = TestMetrics()
        let dimensions = [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"),
            ("url.scheme", "http"),
        ]
        let response = try await Request {
            Url(server.url("/big"))
            Monitor(MetricsMonitor(factory: metrics))
        }.stream(bufferLimit: 1024)
        #expect(metrics.timers.isEmpty)
        #expect(try metrics.expectMeter(MetricsMonitor.activeRequests, dimensions).values == [1])

        var received = 0
        for try await chunk in response { received += chunk.count }
        #expect(received == Self.size)
        // Recorded as the transport finishes the body, on its loop's thread, as the reader reaches its end.
        #expect(
            await waitFor {
                (try? metrics.expectMeter(MetricsMonitor.activeRequests, dimensions).values) == [1, 0]
            })
        let timer = try metrics.expectTimer(
            MetricsMonitor.requestDuration,
            dimensions + [("http.response.status_code", "200"), ("network.protocol.version", "1.1")])
        #expect(timer.values.count == 1)
    }
}
#endif
