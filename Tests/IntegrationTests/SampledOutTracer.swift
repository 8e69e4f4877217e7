#if Tracing
import Foundation
import Tracing

/// A tracer whose sampler leaves every trace out: its spans record nothing, yet each has an id that the tracer
/// propagates in a `sampled-out` header, as a sampling tracer propagates a trace it does not record. It keeps the
/// ids of the spans started and ended, and counts the writes to their attributes.
final class SampledOutTracer: Tracer, @unchecked Sendable {
    typealias Span = UnrecordedSpan

    // Safe: `started`, `ended` and `attributeWrites` are only read and written while `lock` is held.
    private let lock = NSLock()
    private var started: [String] = []
    private var ended: [String] = []
    private var attributeWrites = 0

    /// The ids of the spans started, in order.
    var startedSpans: [String] { lock.withLock { started } }
    /// The ids of the spans ended, in order.
    var endedSpans: [String] { lock.withLock { ended } }
    /// How many times a span's attributes were written.
    var attributeWriteCount: Int { lock.withLock { attributeWrites } }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> UnrecordedSpan {
        let id = lock.withLock {
            started.append("span-\(started.count + 1)")
            return started[started.count - 1]
        }
        var context = context()
        context[SampledOutSpanIDKey.self] = id
        return UnrecordedSpan(context: context, tracer: self)
    }

    func forceFlush() {}

    func inject<Carrier, Inject>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject: Injector, Carrier == Inject.Carrier {
        if let id = context[SampledOutSpanIDKey.self] { injector.inject(id, forKey: "sampled-out", into: &carrier) }
    }

    func extract<Carrier, Extract>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract: Extractor, Carrier == Extract.Carrier {}

    fileprivate func end(_ id: String) {
        lock.withLock { ended.append(id) }
    }

    fileprivate func wroteAttributes() {
        lock.withLock { attributeWrites += 1 }
    }
}

/// A span of ``SampledOutTracer``: it records nothing.
struct UnrecordedSpan: Span {
    let context: ServiceContext
    let tracer: SampledOutTracer

    var isRecording: Bool { false }
    var operationName: String {
        get { "" }
        nonmutating set {}
    }
    var attributes: SpanAttributes {
        get { [:] }
        nonmutating set { tracer.wroteAttributes() }
    }

    func setStatus(_ status: SpanStatus) {}
    func addEvent(_ event: SpanEvent) {}
    func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {}
    func addLink(_ link: SpanLink) {}
    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        tracer.end(context[SampledOutSpanIDKey.self] ?? "")
    }
}

/// The id of a ``SampledOutTracer`` span in its context.
enum SampledOutSpanIDKey: ServiceContextKey {
    typealias Value = String
}
#endif
