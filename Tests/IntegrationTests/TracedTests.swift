#if Tracing
import Foundation
import InMemoryTracing
import RequestKit
import RequestKitTesting
import RequestKitTracing
import ServiceContextModule
import Testing
import Tracing

@Suite("Traced (swift-distributed-tracing)")
struct TracedTests {
    /// The attributes, to compare whole.
    private func attributes(_ span: FinishedInMemorySpan) -> [String: SpanAttribute] {
        var result: [String: SpanAttribute] = [:]
        span.attributes.forEach { key, value in result[key] = value }
        return result
    }

    @Test("A request is one client span with OpenTelemetry's HTTP client attributes, its context sent to the server")
    func tracesRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/orders") { request in .text(request.header("in-memory-span-id") ?? "none") }
        let tracer = InMemoryTracer()
        let response = try await Request {
            Url(server.url("/orders?api_key=hunter22&page=2"))
            Traced(tracer: tracer)
        }.send()

        let span = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1)
        #expect(tracer.activeSpans.isEmpty)
        #expect(span.operationName == "GET")
        #expect(span.kind == .client)
        #expect(span.parentSpanID == nil)
        #expect(
            attributes(span) == [
                "http.request.method": .string("GET"),
                "url.full": .string("http://127.0.0.1:\(server.port)/orders?api_key=<redacted>&page=2"),
                "server.address": .string("127.0.0.1"), "server.port": .int64(Int64(server.port)),
                "http.response.status_code": .int64(200), "network.protocol.version": .string("1.1"),
            ])
        #expect(span.status == nil)
        #expect(span.errors.isEmpty)
        // The tracer's propagation put the span's own id in the request.
        #expect(try response.string() == span.spanID)
    }

    @Test("The span is a child of the task's current span")
    func continuesCurrentContext() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/orders") { _ in .text("ok") }
        let tracer = InMemoryTracer()
        let parent = tracer.startSpan("checkout")
        try await ServiceContext.withValue(parent.context) {
            _ = try await Request {
                Url(server.url("/orders"))
                Traced(tracer: tracer)
            }.send()
        }
        parent.end()
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["GET", "checkout"])
        #expect(spans[0].parentSpanID == spans[1].spanID)
        #expect(spans[0].traceID == spans[1].traceID)
    }

    @Test("Failed attempts are recorded; the span ends with the error type and the resend count")
    func tracesFailures() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let tracer = InMemoryTracer()
        _ = try? await Request {
            Url(server.url("/fault/close"))
            Retry(RetryPolicy(maxAttempts: 3, baseDelay: 0.01, usesJitter: false))
            Traced(tracer: tracer)
        }.send()
        let span = try #require(tracer.finishedSpans.first)
        #expect(tracer.finishedSpans.count == 1)
        #expect(span.operationName == "GET")
        let recorded = attributes(span)
        #expect(recorded["error.type"] == .string("transport"))
        #expect(recorded["http.request.resend_count"] == .int64(2))
        #expect(recorded["http.response.status_code"] == nil)
        #expect(span.errors.count == 3)
        #expect(span.status?.code == .error)
        #expect(span.status?.message == "transport")
    }

    @Test("A 4xx response sets the error type to its status; a method outside the known set is _OTHER")
    func tracesErrorStatus() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/missing") { _ in .text("no", status: 404) }
        let tracer = InMemoryTracer()
        _ = try await Request {
            Url(server.url("/missing"))
            Method("PURGE")
            Traced(tracer: tracer)
        }.send()
        let span = try #require(tracer.finishedSpans.first)
        #expect(span.operationName == "_OTHER")
        #expect(attributes(span)["http.request.method"] == .string("_OTHER"))
        #expect(attributes(span)["http.request.method_original"] == .string("PURGE"))
        #expect(attributes(span)["http.response.status_code"] == .int64(404))
        #expect(attributes(span)["error.type"] == .string("404"))
        #expect(span.status?.code == .error)
    }

    @Test("A redirect's hops count as resends, under one span")
    func countsRedirects() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/old") { _ in .redirect(to: "/new") }
        server.route("/new") { _ in .text("moved") }
        let tracer = InMemoryTracer()
        _ = try await Request {
            Url(server.url("/old"))
            Traced(tracer: tracer)
        }.send()
        #expect(tracer.finishedSpans.count == 1)
        let recorded = try attributes(#require(tracer.finishedSpans.first))
        #expect(recorded["http.request.resend_count"] == .int64(1))
        #expect(recorded["http.response.status_code"] == .int64(200))
    }

    @Test("A W3C tracer's traceparent replaces TraceContext's, and the metrics report the one sent")
    func traceparentAgrees() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/orders") { request in .text(request.header("traceparent") ?? "none") }
        let tracer = W3CInMemoryTracer()
        let response = try await Request {
            Url(server.url("/orders"))
            TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
            Traced(tracer: tracer)
        }.send()
        let span = try #require(tracer.base.finishedSpans.first)
        let expected = "00-\(span.traceID)-\(span.spanID)-01"
        #expect(try response.string() == expected)
        #expect(response.metrics.attempts.last?.traceparent == expected)
        #expect(response.metrics.attempts.last?.spanID == span.spanID)
    }
}
#endif
