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

    @Test("A request is a client span with OpenTelemetry's attributes; its attempt's, under it, is sent as context")
    func tracesRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/orders") { request in .text(request.header("in-memory-span-id") ?? "none") }
        let tracer = InMemoryTracer()
        let response = try await Request {
            Url(server.url("/orders?api_key=hunter22&page=2"))
            Traced(tracer: tracer)
        }.send()

        #expect(tracer.finishedSpans.count == 2)
        #expect(tracer.activeSpans.isEmpty)
        let attempt = try #require(tracer.finishedSpans.first)
        let span = try #require(tracer.finishedSpans.last)
        let expected: [String: SpanAttribute] = [
            "http.request.method": .string("GET"),
            "url.full": .string("http://127.0.0.1:\(server.port)/orders?api_key=<redacted>&page=2"),
            "server.address": .string("127.0.0.1"), "server.port": .int64(Int64(server.port)),
            "http.response.status_code": .int64(200), "network.protocol.version": .string("1.1"),
        ]
        for traced in [span, attempt] {
            #expect(traced.operationName == "GET")
            #expect(traced.kind == .client)
            #expect(attributes(traced) == expected)
            #expect(traced.status == nil)
            #expect(traced.errors.isEmpty)
        }
        #expect(span.parentSpanID == nil)
        #expect(attempt.parentSpanID == span.spanID)
        #expect(attempt.traceID == span.traceID)
        // The tracer's propagation put the attempt's own id in the request.
        #expect(try response.string() == attempt.spanID)
    }

    @Test("The request's span is a child of the task's current span")
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
        #expect(spans.map(\.operationName) == ["GET", "GET", "checkout"])
        #expect(spans[0].parentSpanID == spans[1].spanID)
        #expect(spans[1].parentSpanID == spans[2].spanID)
        #expect(Set(spans.map(\.traceID)) == [spans[2].traceID])
    }

    @Test("Each retry is an attempt span with its error and resend count; the request's span ends with the last")
    func tracesFailures() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let tracer = InMemoryTracer()
        _ = try? await Request {
            Url(server.url("/fault/close"))
            Retry(RetryPolicy(maxAttempts: 3, baseDelay: 0.01, usesJitter: false))
            Traced(tracer: tracer)
        }.send()
        #expect(tracer.finishedSpans.count == 4)
        let span = try #require(tracer.finishedSpans.last)
        let attempts = Array(tracer.finishedSpans.dropLast())
        #expect(span.operationName == "GET")
        let recorded = attributes(span)
        #expect(recorded["error.type"] == .string("transport"))
        #expect(recorded["http.request.resend_count"] == .int64(2))
        #expect(recorded["http.response.status_code"] == nil)
        #expect(span.errors.count == 3)
        #expect(span.status?.code == .error)
        #expect(span.status?.message == "transport")

        #expect(attempts.map { attributes($0)["http.request.resend_count"] } == [nil, .int64(1), .int64(2)])
        for attempt in attempts {
            #expect(attempt.parentSpanID == span.spanID)
            #expect(attempt.kind == .client)
            #expect(attributes(attempt)["error.type"] == .string("transport"))
            #expect(attributes(attempt)["url.full"] == .string("http://127.0.0.1:\(server.port)/fault/close"))
            #expect(attempt.errors.count == 1)
            #expect(attempt.status?.code == .error)
            #expect(attempt.status?.message == "transport")
        }
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
        #expect(tracer.finishedSpans.count == 2)
        let span = try #require(tracer.finishedSpans.last)
        #expect(span.operationName == "_OTHER")
        #expect(attributes(span)["http.request.method"] == .string("_OTHER"))
        #expect(attributes(span)["http.request.method_original"] == .string("PURGE"))
        #expect(attributes(span)["http.response.status_code"] == .int64(404))
        #expect(attributes(span)["error.type"] == .string("404"))
        #expect(span.status?.code == .error)
        let attempt = try #require(tracer.finishedSpans.first)
        #expect(attributes(attempt) == attributes(span))
        #expect(attempt.status?.code == .error)
    }

    @Test("A redirect is an attempt span of its own, after the one it answered, and counts as a resend")
    func tracesRedirects() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/old") { _ in .redirect(to: "/new", status: 303) }
        server.route("/new") { _ in .text("moved") }
        let tracer = InMemoryTracer()
        _ = try await Request {
            Url(server.url("/old"))
            Method(.post)
            Body("order", contentType: "text/plain")
            Traced(tracer: tracer)
        }.send()
        #expect(tracer.finishedSpans.count == 3)
        let span = try #require(tracer.finishedSpans.last)
        let recorded = attributes(span)
        #expect(recorded["http.request.resend_count"] == .int64(1))
        #expect(recorded["http.response.status_code"] == .int64(200))
        #expect(recorded["url.full"] == .string("http://127.0.0.1:\(server.port)/old"))

        let first = tracer.finishedSpans[0]
        let redirected = tracer.finishedSpans[1]
        #expect(
            attributes(first) == [
                "http.request.method": .string("POST"),
                "url.full": .string("http://127.0.0.1:\(server.port)/old"),
                "server.address": .string("127.0.0.1"), "server.port": .int64(Int64(server.port)),
                "http.response.status_code": .int64(303), "network.protocol.version": .string("1.1"),
            ])
        #expect(
            attributes(redirected) == [
                "http.request.method": .string("GET"),
                "url.full": .string("http://127.0.0.1:\(server.port)/new"),
                "server.address": .string("127.0.0.1"), "server.port": .int64(Int64(server.port)),
                "http.response.status_code": .int64(200), "network.protocol.version": .string("1.1"),
                "http.request.resend_count": .int64(1),
            ])
        #expect(first.parentSpanID == span.spanID)
        #expect(redirected.parentSpanID == span.spanID)
        #expect(redirected.operationName == "GET")
        #expect(first.status == nil)
        #expect(redirected.status == nil)
        // The redirect's span starts no earlier than the first hop's, and ends no later than the request's span.
        #expect(redirected.startInstant.nanosecondsSinceEpoch >= first.startInstant.nanosecondsSinceEpoch)
        #expect(redirected.endInstant.nanosecondsSinceEpoch <= span.endInstant.nanosecondsSinceEpoch)
    }

    @Test("A span left out by a sampler has no attempt spans and no attributes; every attempt carries its context")
    func sampledOut() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let counter = W3CInMemoryTracer.Counter()
        server.route("/orders") { request in
            .text(request.header("sampled-out") ?? "none", status: counter.next() == 1 ? 503 : 200)
        }
        let tracer = SampledOutTracer()
        let response = try await Request {
            Url(server.url("/orders"))
            Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0.01, usesJitter: false))
            Traced(tracer: tracer)
        }.send()
        #expect(response.statusCode == 200)
        #expect(try response.string() == "span-1")
        #expect(server.requests.map { $0.header("sampled-out") } == ["span-1", "span-1"])
        #expect(tracer.startedSpans == ["span-1"])
        #expect(tracer.endedSpans == ["span-1"])
        #expect(tracer.attributeWriteCount == 0)
    }

    @Test("With a no-op tracer, Traced adds nothing to the request")
    func noOpTracer() {
        var parts = RequestParts()
        Traced(tracer: NoOpTracer()).apply(to: &parts)
        #expect(!parts.hasOptions)
        Traced(tracer: InMemoryTracer()).apply(to: &parts)
        #expect(parts.hasOptions)
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
        // The attempt's span, which the request carried.
        #expect(tracer.base.finishedSpans.count == 2)
        let span = try #require(tracer.base.finishedSpans.first)
        let expected = "00-\(span.traceID)-\(span.spanID)-01"
        #expect(try response.string() == expected)
        #expect(response.metrics.attempts.last?.traceparent == expected)
        #expect(response.metrics.attempts.last?.spanID == span.spanID)
    }
}
#endif
