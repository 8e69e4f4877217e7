#if Tracing
import Foundation
import RequestKit
import Tracing

/// Traces each request through swift-distributed-tracing: a client span per request, from its first attempt to its
/// end, as a child of the task's current `ServiceContext`, and under it a client span per attempt (each retry, and
/// each redirect hop), whose context the tracer injects into the attempt's headers (`traceparent`, or whatever the
/// tracer propagates). A redirect hop is sent within its attempt, so it carries that attempt's context; its span is
/// made when the attempt ends, from the times its ``RequestMetrics/Attempt`` recorded.
///
/// The spans are named after the method (`GET`) and have OpenTelemetry's HTTP client attributes:
/// `http.request.method` (`_OTHER` and `http.request.method_original` for a method outside the known set),
/// `url.full` with its secrets redacted (``SensitiveData``), `server.address`, `server.port`,
/// `http.response.status_code`, `network.protocol.version` (`1.1`, `2`), `error.type` (the status from 400, or the
/// ``RequestError/Kind`` of a failure, with the span's status an error) and `http.request.resend_count` (the
/// attempts before it, retries and redirect hops alike; on the request's span, all after the first). The request's
/// span has its last attempt's outcome; each failed attempt's error is recorded on its own span and on the
/// request's. A streamed response's spans end with its body: when it has arrived whole, or failed (its error recorded),
/// or its reader stopped or went before its end (a cancellation).
///
/// With a `NoOpTracer` (`InstrumentationSystem`'s tracer until one is bootstrapped) it does nothing: such a tracer
/// starts no span and injects no header, so a request costs what it costs without `Traced`.
///
/// A `traceparent` the tracer injects replaces one that ``TraceContext`` set, and the attempts' metrics report the
/// one sent (``RequestMetrics/Attempt/traceparent``), so RequestKit's trace context and the tracer's agree.
///
/// ```swift
/// import RequestKitTracing
/// import Tracing
///
/// let client = Client(baseURL: url) { $0.defaults = [Traced()] }  // InstrumentationSystem's tracer
/// try await withSpan("checkout") { _ in
///     _ = try await client.send(Request { Path("orders") })  // a span under "checkout", its attempt's under it
/// }
/// ```
public struct Traced: RequestComponent {
    private let tracer: any Tracer
    private let sensitiveData: SensitiveData
    /// Whether the tracer is a `NoOpTracer`, which records and propagates nothing.
    private let isNoOp: Bool

    /// Traces through `tracer`.
    ///
    /// ```swift
    /// Request {
    ///     Url("http://127.0.0.1:8080/orders")
    ///     Traced(tracer: tracer, sensitiveData: SensitiveData(queryNames: ["sig"]))
    /// }
    /// ```
    /// - Parameters:
    ///   - tracer: The tracer; the one `InstrumentationSystem.bootstrap` installed unless given.
    ///   - sensitiveData: What `url.full` redacts; the defaults unless given.
    public init(tracer: any Tracer = InstrumentationSystem.tracer, sensitiveData: SensitiveData = SensitiveData()) {
        self.tracer = tracer
        self.sensitiveData = sensitiveData
        self.isNoOp = tracer is NoOpTracer
    }

    public func apply(to parts: inout RequestParts) {
        if isNoOp { return }
        let span = RequestSpan(tracer: tracer, sensitiveData: sensitiveData)
        Intercept(span).apply(to: &parts)
        Monitor(span).apply(to: &parts)
    }
}
#endif
