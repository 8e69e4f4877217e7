#if Tracing
import Foundation
import RequestKit
import RequestKitConventions
import RequestKitFeatures
import Tracing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The spans of one request as it is sent: the request's span, started by the first attempt's adaptation (on the
/// sending task, so that the task's `ServiceContext` is its parent) and ended when the request ends, and under it a
/// client span per attempt: each attempt's adaptation starts one, whose context the tracer injects into the
/// attempt's headers, and the attempt's outcome ends it. A redirect the attempt followed is a span of its own too,
/// made from the times the hop's ``RequestMetrics/Attempt`` recorded (its request carried the attempt's context).
/// An attempt whose response streams ends with its body, and the request's span with it, even when the request ended
/// at the head (``StreamedResponseMonitor``). One is made for each request ``Traced`` is applied to. A request span
/// that does not record (a no-op tracer's, or one a sampler left out) has no attempt spans under it and no attributes
/// computed: nobody would read them, and its context is what the attempts carry.
final class RequestSpan: Interceptor, StreamedResponseMonitor, @unchecked Sendable {
    /// An attempt's outcome, for its span, and the request's end, for the request's.
    var monitoredEvents: MonitoredEvents { [.responseReceived, .requestFailed, .requestFinished] }

    private let tracer: any Tracer
    private let sensitiveData: SensitiveData
    /// Guards `state`.
    private let lock = NSLock()
    private var state = State()

    private struct State {
        var span: (any Span)?
        /// The attempt being sent: started by its adaptation, ended by its outcome.
        var attempt: (any Span)?
        /// The hops (attempts and the redirects they followed) whose spans have ended.
        var hops = 0
        var isEnded = false
        /// The last attempt's outcome: a status or an error.
        var status: Int?
        var error: RequestError?
        /// The attempts adapted so far: a streamed body's end concerns the attempt it came for only.
        var attempts = 0
        /// Whether the attempt's response streams a body that has not ended yet.
        var isBodyPending = false
        /// The request's end, when it came while the body was pending: the span ends with the body.
        var finished: (request: URLRequest, metrics: RequestMetrics)?
    }

    init(tracer: any Tracer, sensitiveData: SensitiveData) {
        self.tracer = tracer
        self.sensitiveData = sensitiveData
    }

    /// Spans the request never ended (an interceptor threw, so no monitor heard its end) end when the request is
    /// dropped, so that no span stays open.
    deinit {
        if let attempt = state.attempt {
            attempt.setStatus(SpanStatus(code: .error, message: "the attempt ended without an outcome"))
            attempt.end()
        }
        if let span = state.span, !state.isEnded {
            span.setStatus(SpanStatus(code: .error, message: "the request ended without an outcome"))
            span.end()
        }
    }

    /// Starts the request's span (the first time) and the attempt's, and injects the attempt's context. When the
    /// request's span does not record (a no-op or sampling tracer), there are no attempt spans: the request's context
    /// is injected, and no attribute is computed.
    func adapt(_ request: URLRequest) async throws -> URLRequest {
        let (context, unfinished) = lock.withLock { () -> (ServiceContext, (any Span)?) in
            let span: any Span
            if let existing = state.span {
                span = existing
            } else {
                let method = HTTPClientConventions.method(of: request)
                span = tracer.startSpan(method, context: ServiceContext.current ?? .topLevel, ofKind: .client)
                span.updateRecordedAttributes { describe(request, method: method, in: &$0) }
                state.span = span
            }
            state.attempts += 1
            state.isBodyPending = false
            guard span.isRecording else { return (span.context, nil) }
            let method = HTTPClientConventions.method(of: request)
            let attempt = tracer.startSpan(method, context: span.context, ofKind: .client)
            let resends = state.hops
            attempt.updateRecordedAttributes { attributes in
                describe(request, method: method, in: &attributes)
                if resends > 0 { attributes["http.request.resend_count"] = resends }
            }
            let unfinished = state.attempt
            state.attempt = attempt
            return (attempt.context, unfinished)
        }
        unfinished?.end()
        var adapted = request
        tracer.inject(context, into: &adapted, using: HeaderInjector())
        return adapted
    }

    func responseReceived(_ response: Response, for request: URLRequest, duration: Double, attempt: Int) {
        lock.withLock {
            state.status = response.statusCode
            state.error = nil
        }
        endAttempt(of: request, hops: response.metrics.attempts, outcome: .success(response.statusCode))
    }

    func responseStreamed(
        _ response: Response, for request: URLRequest, attempt: Int
    ) -> (@Sendable (RequestError?, Double) -> Void)? {
        let number = lock.withLock {
            state.status = response.statusCode
            state.error = nil
            state.isBodyPending = true
            return state.attempts
        }
        return { failure, _ in self.bodyEnded(response, for: request, attempt: number, failure: failure) }
    }

    /// The body of a streamed response ended: its attempt's span ends, with `failure` recorded when it did not arrive
    /// whole, and the request's span too when the request has ended.
    private func bodyEnded(_ response: Response, for request: URLRequest, attempt: Int, failure: RequestError?) {
        let span = lock.withLock { () -> (any Span)?? in
            // A body that ends after its attempt was retried (its span ended with the next attempt's start).
            guard state.attempts == attempt, state.isBodyPending else { return nil }
            if let failure { state.error = failure }
            return .some(state.span)
        }
        guard let span else { return }
        if let failure, let span, span.isRecording {
            span.recordError(failure, attributes: ["error.type": .string(HTTPClientConventions.errorType(of: failure))])
        }
        endAttempt(
            of: request, hops: response.metrics.attempts,
            outcome: failure.map { .failure($0) } ?? .success(response.statusCode), answered: response.statusCode)
        let finished = lock.withLock {
            state.isBodyPending = false
            defer { state.finished = nil }
            return state.finished
        }
        if let finished { requestFinished(finished.request, metrics: finished.metrics) }
    }

    func requestFailed(_ error: RequestError, for request: URLRequest, duration: Double, attempt: Int) {
        let span = lock.withLock {
            state.status = nil
            state.error = error
            return state.span
        }
        if let span, span.isRecording {
            span.recordError(error, attributes: ["error.type": .string(HTTPClientConventions.errorType(of: error))])
        }
        endAttempt(of: request, hops: error.metrics?.attempts ?? [], outcome: .failure(error))
    }

    func requestFinished(_ request: URLRequest, metrics: RequestMetrics) {
        let ended = lock.withLock {
            () -> (span: any Span, attempt: (any Span)?, status: Int?, error: RequestError?)? in
            guard let span = state.span, !state.isEnded else { return nil }
            if state.isBodyPending {
                state.finished = (request, metrics)
                return nil
            }
            state.isEnded = true
            let attempt = state.attempt
            state.attempt = nil
            return (span, attempt, state.status, state.error)
        }
        guard let ended else { return }
        ended.attempt?.end()
        let last = metrics.attempts.last
        ended.span.updateRecordedAttributes { attributes in
            if let status = ended.status { attributes["http.response.status_code"] = status }
            if let version = HTTPClientConventions.protocolVersion(ofNetworkProtocol: last?.networkProtocol) {
                attributes["network.protocol.version"] = version
            }
            if metrics.attempts.count > 1 { attributes["http.request.resend_count"] = metrics.attempts.count - 1 }
            if let error = ended.error {
                attributes["error.type"] = HTTPClientConventions.errorType(of: error)
            } else if let status = ended.status, let type = HTTPClientConventions.errorType(ofStatus: status) {
                attributes["error.type"] = type
            }
        }
        Self.setStatus(of: ended.span, error: ended.error, status: ended.status)
        ended.span.end()
    }

    /// Ends the attempt being sent with its outcome. `hops` are the request's recorded hops so far: those after the
    /// ones already traced are this attempt's, the first sent with the attempt's own span and each later one a
    /// redirect it followed, given a span from its recorded times.
    private func endAttempt(
        of request: URLRequest, hops: [RequestMetrics.Attempt], outcome: Result<Int, RequestError>,
        answered: Int? = nil
    ) {
        let taken = lock.withLock { () -> (attempt: any Span, parent: any Span, first: Int)? in
            guard let attempt = state.attempt, let span = state.span else { return nil }
            state.attempt = nil
            let first = state.hops
            state.hops = max(hops.count, first + 1)
            return (attempt, span, first)
        }
        guard let taken else { return }
        let ours = taken.first < hops.count ? Array(hops[taken.first...]) : []
        guard !ours.isEmpty else {
            finish(taken.attempt, hop: nil, outcome: outcome, answered: answered)
            return
        }
        let clock = WallClock()
        var method = request.httpMethod ?? "GET"
        for (index, hop) in ours.enumerated() {
            let isLast = index == ours.count - 1
            let span: any Span
            if index == 0 {
                span = taken.attempt
            } else {
                var redirected = URLRequest(url: hop.url ?? request.url ?? URL(fileURLWithPath: "/"))
                redirected.httpMethod = method
                span = tracer.startSpan(
                    HTTPClientConventions.method(of: redirected), context: taken.parent.context, ofKind: .client,
                    at: clock.instant(of: hop.start))
                let resends = taken.first + index
                span.updateRecordedAttributes { attributes in
                    describe(redirected, method: HTTPClientConventions.method(of: redirected), in: &attributes)
                    attributes["http.request.resend_count"] = resends
                }
            }
            if isLast {
                finish(span, hop: hop, outcome: outcome, answered: answered)
            } else {
                let status = hop.status?.code
                finish(
                    span, hop: hop, outcome: status.map { Result<Int, RequestError>.success($0) },
                    at: hop.end.map(clock.instant(of:)))
                if let status { method = RedirectPolicy.method(after: status, from: method) }
            }
        }
    }

    /// Gives an attempt's span its outcome and protocol version, and ends it (at `end`, or now). `answered` is the
    /// status of a response whose body then failed.
    private func finish(
        _ span: any Span, hop: RequestMetrics.Attempt?, outcome: Result<Int, RequestError>?,
        at end: DefaultTracerClock.Timestamp? = nil, answered: Int? = nil
    ) {
        var status: Int?
        var error: RequestError?
        switch outcome {
        case .success(let code): status = code
        case .failure(let failure):
            error = failure
            status = answered
        case nil: break
        }
        span.updateRecordedAttributes { attributes in
            if let status { attributes["http.response.status_code"] = status }
            if let version = HTTPClientConventions.protocolVersion(ofNetworkProtocol: hop?.networkProtocol) {
                attributes["network.protocol.version"] = version
            }
            if let error {
                attributes["error.type"] = HTTPClientConventions.errorType(of: error)
            } else if let status, let type = HTTPClientConventions.errorType(ofStatus: status) {
                attributes["error.type"] = type
            }
        }
        if let error, span.isRecording {
            span.recordError(error, attributes: ["error.type": .string(HTTPClientConventions.errorType(of: error))])
        }
        Self.setStatus(of: span, error: error, status: status)
        if let end { span.end(at: end) } else { span.end() }
    }

    /// The request's method (`method`, as ``HTTPClientConventions/method(of:)`` names it), `url.full` and server,
    /// as a span starts with them.
    private func describe(_ request: URLRequest, method: String, in attributes: inout SpanAttributes) {
        attributes["http.request.method"] = method
        if let original = HTTPClientConventions.originalMethod(of: request) {
            attributes["http.request.method_original"] = original
        }
        attributes["url.full"] = HTTPClientConventions.urlFull(of: request, redacting: sensitiveData)
        if let address = HTTPClientConventions.serverAddress(of: request) { attributes["server.address"] = address }
        if let port = HTTPClientConventions.serverPort(of: request) { attributes["server.port"] = port }
    }

    /// An error's status for a failure or a status from 400.
    private static func setStatus(of span: any Span, error: RequestError?, status: Int?) {
        if let error {
            span.setStatus(SpanStatus(code: .error, message: error.kind.name))
        } else if let status, status >= 400 {
            span.setStatus(SpanStatus(code: .error))
        }
    }
}

/// Converts the instants of ``RequestMetrics`` (on the continuous clock) to the tracer's wall-clock time, against
/// one reading of both clocks.
struct WallClock {
    private let now = ContinuousClock.now
    private let wall = DefaultTracerClock.now.nanosecondsSinceEpoch

    /// The wall-clock time of `instant`; never before the epoch nor after the present reading's double.
    func instant(of instant: ContinuousClock.Instant) -> DefaultTracerClock.Timestamp {
        let ago = instant.duration(to: now).components
        let nanoseconds = Double(wall) - (Double(ago.seconds) * 1e9 + Double(ago.attoseconds) / 1e9)
        return DefaultTracerClock.Timestamp(
            nanosecondsSinceEpoch: UInt64(min(max(0, nanoseconds), Double(wall) * 2)))
    }
}

/// Sets each value the tracer propagates as a header field of the request, replacing a field of the same name.
struct HeaderInjector: Injector {
    func inject(_ value: String, forKey key: String, into request: inout URLRequest) {
        request.setValue(value, forHTTPHeaderField: key)
    }
}
#endif

#if Tracing
extension Span {
    /// Updates the span's attributes only when it records them: a span a no-op or sampling tracer does not record
    /// pays nothing for attributes nobody reads.
    fileprivate func updateRecordedAttributes(_ update: (inout SpanAttributes) -> Void) {
        guard isRecording else { return }
        updateAttributes(update)
    }
}
#endif
