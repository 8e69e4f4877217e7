#if Tracing
import Foundation
import RequestKit
import Tracing

/// Traces each request through swift-distributed-tracing: a client span per request, from its first attempt to its
/// end, as a child of the task's current `ServiceContext`, whose context the tracer injects into the headers of every
/// attempt (`traceparent`, or whatever the tracer propagates).
///
/// The span is named after the method (`GET`) and has OpenTelemetry's HTTP client attributes:
/// `http.request.method` (`_OTHER` and `http.request.method_original` for a method outside the known set),
/// `url.full` with its secrets redacted (``SensitiveData``), `server.address`, `server.port`,
/// `http.response.status_code`, `network.protocol.version` (`1.1`, `2`), `error.type` (the status from 400, or the
/// ``RequestError/Kind`` of a failure, with the span's status an error) and `http.request.resend_count` (the
/// attempts after the first: retries and redirect hops). Each failed attempt's error is recorded on the span.
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
///     _ = try await client.send(Request { Path("orders") })  // a child span of "checkout"
/// }
/// ```
public struct Traced: RequestComponent {
    private let tracer: any Tracer
    private let sensitiveData: SensitiveData

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
    }

    public func apply(to parts: inout RequestParts) {
        let span = RequestSpan(tracer: tracer, sensitiveData: sensitiveData)
        Intercept(span).apply(to: &parts)
        Monitor(span).apply(to: &parts)
    }
}
#endif
