import Foundation
import RequestKitModel

/// Sends W3C Trace Context headers (`traceparent`, and `tracestate` when there is one), so that a tracing system
/// can tie the request to the work that caused it.
///
/// `TraceContext()` starts a new trace: each request built gets a random trace id and a random span id (the
/// `parent-id` the server sees). `TraceContext(traceparent:tracestate:)` continues one, such as the trace of an
/// incoming request a server is handling: each request keeps the trace id and flags and gets a new span id of its
/// own, and `tracestate` passes on unchanged. A value that breaks the W3C Trace Context rules is reported when the
/// request is built, as a ``RequestProblem`` of kind ``RequestProblem/Kind/invalidHeaderValue``; it is never sent.
/// A ``Client`` sends one on every request with ``Client/Configuration/traceContext``.
///
/// ```swift
/// Request {
///     Url("http://127.0.0.1:8080/orders")
///     TraceContext(traceparent: incoming.traceparent, tracestate: incoming.tracestate)
/// }
/// ```
public struct TraceContext: RequestComponent, Hashable {
    /// The trace id requests continue (32 lowercase hex digits), or nil when each request starts a new trace.
    public let traceID: String?
    /// The `parent-id` of the `traceparent` continued (16 lowercase hex digits): the caller's span.
    public let parentID: String?
    /// Whether the trace is sampled (the `sampled` flag sent).
    public let isSampled: Bool
    /// The `tracestate` sent with every request, as given.
    public let traceState: String?
    /// Why the given values cannot be sent, when they break the rules.
    private let problem: String?

    /// Starts a new trace for each request: a random trace id and span id.
    ///
    /// ```swift
    /// TraceContext()
    /// TraceContext(sampled: false, tracestate: "congo=t61rcWkgMzE")
    /// ```
    /// - Parameters:
    ///   - sampled: Whether to set the `sampled` flag; true by default.
    ///   - tracestate: A `tracestate` to send, or nil for none.
    public init(sampled: Bool = true, tracestate: String? = nil) {
        let state = tracestate.map(TraceContextSyntax.trimmed)
        traceID = nil
        parentID = nil
        isSampled = sampled
        traceState = state
        problem = state.flatMap(TraceContextSyntax.problem(inTraceState:))
    }

    /// Continues the trace of a `traceparent` (and its `tracestate`): every request keeps the trace id and the
    /// `sampled` flag and sends a new span id. A `traceparent` of a later version is read as the spec says (its
    /// first four fields) and continued as version `00`. Invalid values are reported when the request is built.
    ///
    /// ```swift
    /// TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    /// ```
    /// - Parameters:
    ///   - traceparent: The `traceparent` header value to continue.
    ///   - tracestate: Its `tracestate` header value, if any.
    public init(traceparent: String, tracestate: String? = nil) {
        let state = tracestate.map(TraceContextSyntax.trimmed)
        traceState = state
        switch TraceContextSyntax.parse(traceparent: traceparent) {
        case .valid(let parsed):
            traceID = parsed.traceID
            parentID = parsed.parentID
            isSampled = parsed.isSampled
            problem = state.flatMap(TraceContextSyntax.problem(inTraceState:))
        case .invalid(let reason):
            traceID = nil
            parentID = nil
            isSampled = false
            problem = "the traceparent \(traceparent.debugDescription) is not valid: \(reason)"
        }
    }

    public func apply(to parts: inout RequestParts) {
        if let problem {
            parts.report(RequestProblem(.invalidHeaderValue, problem))
            return
        }
        // The system's CSPRNG in an existential box: an inout access to the empty generator itself has no address
        // of its own, and the thread sanitizer reports two threads' accesses to the shared placeholder as a race.
        var generator: any RandomNumberGenerator = SystemRandomNumberGenerator()
        let trace = traceID ?? TraceContextSyntax.randomID(bytes: 16, using: &generator)
        let span = TraceContextSyntax.randomID(bytes: 8, using: &generator)
        let traceparent = "00-\(trace)-\(span)-\(isSampled ? "01" : "00")"
        parts.headers.set("traceparent", traceparent)
        parts[option: TraceparentKey.self] = traceparent
        if let traceState {
            parts.headers.set("tracestate", traceState)
        } else {
            parts.headers.remove("tracestate")
        }
    }
}

/// The `traceparent` a ``TraceContext`` set, for the request's ``RequestMetrics``.
package enum TraceparentKey: RequestOptionKey {
    package static let defaultValue: String? = nil
}
