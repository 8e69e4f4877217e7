#if Tracing
import Foundation
import InMemoryTracing
import ServiceContextModule
import Tracing

/// swift-distributed-tracing's `InMemoryTracer`, propagating its span context as a W3C `traceparent`, as an
/// OpenTelemetry tracer does: trace ids of 32 hex digits and span ids of 16, counting up from 1.
struct W3CInMemoryTracer: Tracer {
    let base = InMemoryTracer(
        idGenerator: .init(
            nextTraceID: { String(repeating: "0", count: 31) + "1" },
            nextSpanID: { String(format: "%016x", W3CInMemoryTracer.spanCounter.next()) }))

    /// Span ids for all tracers of the suite: unique, so a test never depends on another's spans.
    static let spanCounter = Counter()

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.withLock {
                value += 1
                return value
            }
        }
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> InMemorySpan {
        base.startSpan(
            operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
            line: line)
    }

    func forceFlush() { base.forceFlush() }

    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let span = context.inMemorySpanContext else { return }
        injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
    }

    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        base.extract(carrier, into: &context, using: extractor)
    }
}
#endif
