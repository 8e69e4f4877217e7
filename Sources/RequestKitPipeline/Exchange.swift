import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's trip through the pipeline, the same for every verb and every transport: interceptors adapt
/// each attempt, the cookie jar adds and stores cookies, monitors see each attempt, redirects are followed as
/// the policy says (``Exchange/follow(_:explicitCookies:sink:)``), what is sent is checked
/// (``OutgoingRequestCheck``), and the interceptors and the retry policy decide whether to try again.
///
/// The body goes to a ``ResponseSink``: collected in memory, or handed to the caller as a stream. A retry can
/// happen until the caller has the body: after a failed attempt, or on a status the policy retries.
///
/// Every hop carries the request's ``ResponseLimits`` and ``DNSOverrides`` to the transport
/// (``TransferRequest/responseLimits``, ``TransferRequest/dnsOverrides``), and a
/// body collected in memory is held to ``ResponseLimits/maxBodyBytes`` here too, whatever the transport.
struct Exchange: Sendable {
    /// The request as built: its options are read where they are needed, so a request that sets none pays for none.
    let parts: RequestParts
    let transport: any Transport
    /// The request as built and checked: the first hop sends it as it is, unless an interceptor adapts it.
    let built: BuiltRequest

    init(_ parts: consuming RequestParts, transport: any Transport, built: BuiltRequest) {
        self.parts = parts
        self.transport = transport
        self.built = built
    }

    var method: HTTPMethod { parts.method }
    var body: RequestBody? { parts.body }
    var uploadProgress: (@Sendable (TransferProgress) -> Void)? { parts[option: UploadProgressKey.self] }
    var interceptors: [any Interceptor] { parts[option: InterceptorsKey.self] }
    var monitors: [any EventMonitor] { parts[option: EventMonitorsKey.self] }
    var retryPolicy: RetryPolicy { parts[option: RetryPolicyKey.self] }
    var redirectPolicy: RedirectPolicy { parts[option: RedirectPolicyKey.self] ?? .follow }
    var cookieJar: CookieJar? { parts[option: CookieJarKey.self] }
    var clock: RequestClock { parts.clock }
    var responseLimits: ResponseLimits { parts[option: ResponseLimitsKey.self] }
    var sensitiveData: SensitiveData { parts[option: SensitiveDataKey.self] }
    var dnsOverrides: DNSOverrides { parts[option: DNSOverridesKey.self] }

    /// Sends the built request, adapting each attempt and retrying as the interceptors and the policy decide.
    /// Inlined into the callers of ``RequestExecutor``, like the hop it runs.
    @inline(__always)
    nonisolated(nonsending) func run(sink: ResponseSink) async throws(RequestError) -> Delivery {
        guard !parts.hasOptions || !needsAttempts else {
            return try await runAttempts(sink: sink)
        }
        // One attempt, nothing to adapt, report or decide: the loop of `runAttempts` without its bookkeeping, and
        // without its frame (a task keeps what its deepest calls took until it ends; an event stream is held long).
        let (request, explicitCookies) = withJarCookies(.built(built))
        // Switched on, not `get()`: the delivery moves out of the result instead of being copied.
        switch await follow(request, explicitCookies: explicitCookies, sink: sink) {
        case .success(let delivery): return delivery
        case .failure(let error): throw error
        }
    }

    /// Whether an interceptor, a monitor or a retry policy takes part: then every attempt is adapted, reported and
    /// decided. Out of line, so that the options read stay out of the frame of ``run(sink:)``'s callers. An option
    /// nobody set is at its default (no interceptor, no monitor, one attempt) and is not read; monitors that record
    /// no event (``EventMonitor/monitoredEvents``) do not take part.
    @inline(never)
    private var needsAttempts: Bool {
        (parts.hasOption(InterceptorsKey.self) && !interceptors.isEmpty)
            || (parts.hasOption(EventMonitorsKey.self) && !monitors.monitoredEvents.isEmpty)
            || (parts.hasOption(RetryPolicyKey.self) && retryPolicy.maxAttempts > 1)
    }

    /// ``run(sink:)`` with interceptors, monitors or a retry policy: each attempt adapted, reported and decided.
    private nonisolated(nonsending) func runAttempts(sink: ResponseSink) async throws(RequestError) -> Delivery {
        if Task.isCancelled { throw RequestError.cancelled(underlyingError: CancellationError()) }
        // Each option read once per request: every read looks the key up among the request's options.
        let interceptors = self.interceptors
        let monitors = self.monitors
        let events = monitors.monitoredEvents
        let retryPolicy = self.retryPolicy
        var attempt = 1
        var policyAttempt = 1
        var retriesByInterceptor = Array(repeating: 0, count: interceptors.count)
        // The attempts before this one: a response's (or the last error's) metrics show every attempt.
        var earlier: [RequestMetrics.Attempt] = []
        while true {
            let (head, explicitCookies) = withJarCookies(try await adapted(by: interceptors))
            // What monitors and interceptors are shown: made only for them.
            let request = events.isEmpty && interceptors.isEmpty ? nil : head.urlRequest
            if let request, events.contains(.requestStarted) {
                for monitor in monitors where monitor.monitoredEvents.contains(.requestStarted) {
                    monitor.requestStarted(request, attempt: attempt)
                }
            }
            let start = events.isDisjoint(with: .outcomes) ? 0 : DispatchTime.now().uptimeNanoseconds
            var delivered = await follow(head, explicitCookies: explicitCookies, sink: sink)
            if !earlier.isEmpty {
                switch delivered {
                case .success(var delivery):
                    delivery.response.metrics.attempts.insert(contentsOf: earlier, at: 0)
                    delivered = .success(delivery)
                case .failure(let error):
                    delivered = .failure(Self.prepending(earlier, to: error))
                }
            }
            let outcome = delivered.map(\.response)
            if let request, !events.isDisjoint(with: .outcomes) {
                let duration = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                var streamed: ResponseBodyStream?
                if case .success(let delivery) = delivered { streamed = delivery.body }
                for monitor in monitors {
                    switch outcome {
                    case .success(let response):
                        guard monitor.monitoredEvents.contains(.responseReceived) else { continue }
                        if let streamed, let monitor = monitor as? any StreamedResponseMonitor {
                            guard let ended = monitor.responseStreamed(response, for: request, attempt: attempt)
                            else { continue }
                            streamed.buffer.addEndHandler { failure in
                                ended(failure, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
                            }
                            continue
                        }
                        monitor.responseReceived(response, for: request, duration: duration, attempt: attempt)
                    case .failure(let error):
                        guard monitor.monitoredEvents.contains(.requestFailed) else { continue }
                        monitor.requestFailed(error, for: request, duration: duration, attempt: attempt)
                    }
                }
            }
            if case .failure(let error) = outcome,
                error.kind == .cancelled || error.kind == .invalidRequest || Task.isCancelled
            {
                if let request, events.contains(.requestFinished) { monitors.reportFinished(outcome, of: request) }
                throw error
            }

            var delay: Double?
            for (index, interceptor) in interceptors.enumerated() {
                guard let request else { break }
                let context = RetryContext(attempt: attempt, previousRetries: retriesByInterceptor[index])
                let decision: RetryDecision
                do {
                    decision = try await interceptor.retry(request, outcome: outcome, context: context)
                } catch {
                    await delivered.discard()
                    throw Self.interceptorError(error, action: "deciding about a retry")
                }
                if let seconds = decision.delay {
                    delay = seconds
                    retriesByInterceptor[index] += 1
                    break
                }
            }
            if delay == nil, let seconds = retryPolicy.delay(after: outcome, method: method, attempt: policyAttempt) {
                delay = seconds
                policyAttempt += 1
            }
            guard let delay else {
                if let request, events.contains(.requestFinished) { monitors.reportFinished(outcome, of: request) }
                return try delivered.get()
            }
            await delivered.discard()
            switch outcome {
            case .success(let response): earlier = response.metrics.attempts
            case .failure(let error): earlier = error.metrics?.attempts ?? earlier
            }
            attempt += 1
            if let request, events.contains(.requestRetrying) {
                for monitor in monitors where monitor.monitoredEvents.contains(.requestRetrying) {
                    monitor.requestRetrying(request, nextAttempt: attempt, delay: delay)
                }
            }
            do {
                try await clock.sleep(seconds: delay)
            } catch {
                throw RequestError.cancelled(underlyingError: error)
            }
        }
    }

    /// One hop through the transport: the body from memory or streamed, delivered to `sink`. It runs in its
    /// caller's frame, as does the buffered hop (``receive(_:)``), the common one; the streamed kinds have functions
    /// of their own, so that a task's frames hold only what its kind needs (a task keeps them until it ends).
    @inline(__always)
    nonisolated(nonsending) func transfer(
        _ request: TransferRequest.Head, body: RequestBody?, sink: ResponseSink
    ) async -> Result<Delivery, RequestError> {
        do {
            try Task.checkCancellation()
            switch sink {
            case .memory(let progress):
                let transfer = TransferRequest(
                    request, body: body, uploadProgress: uploadProgress, responseLimits: responseLimits,
                    dnsOverrides: dnsOverrides)
                if let progress { return try await collect(transfer, progress: progress) }
                return try await receive(transfer)
            case .consumer(let bufferLimit):
                let transfer = TransferRequest(
                    request, body: body, uploadProgress: uploadProgress, bufferLimit: bufferLimit,
                    responseLimits: responseLimits, dnsOverrides: dnsOverrides)
                return try await handOver(transfer)
            }
        } catch {
            return .failure(RequestError.wrapping(error))
        }
    }

    /// Sends `transfer` and takes its whole response from the transport. Inlined: every async call costs a frame
    /// allocation and a resumption.
    @inline(__always)
    private nonisolated(nonsending) func receive(
        _ transfer: TransferRequest
    ) async throws -> Result<Delivery, RequestError> {
        let response = try await transport.send(transfer)
        try IncomingResponseCheck.validate(response)
        // The transports in this package stop reading at the limit; this holds it for any other.
        let limit = transfer.responseLimits.maxBodyBytes
        if response.body.count > limit {
            var head = response
            head.body = Data()
            throw RequestError.responseTooLarge(limit: limit, response: head)
        }
        return .success(Delivery(response: response, body: nil))
    }

    /// Streams `transfer`'s response and collects its body, reporting download progress.
    @inline(never)
    private nonisolated(nonsending) func collect(
        _ transfer: TransferRequest, progress: @Sendable (TransferProgress) -> Void
    ) async throws -> Result<Delivery, RequestError> {
        let streaming = try await transport.stream(transfer)
        try Self.check(streaming)
        var response = streaming.head
        response.body = try await Self.collect(
            streaming, upTo: transfer.responseLimits.maxBodyBytes, progress: progress)
        return .success(Delivery(response: response, body: nil))
    }

    /// Streams `transfer`'s response, handing its body to the caller.
    @inline(never)
    private nonisolated(nonsending) func handOver(
        _ transfer: TransferRequest
    ) async throws -> Result<Delivery, RequestError> {
        let streaming = try await transport.stream(transfer)
        try Self.check(streaming)
        return .success(Delivery(response: streaming.head, body: streaming.body))
    }

    /// Checks a streamed response's head (``IncomingResponseCheck``), stopping its body when it fails.
    private static func check(_ streaming: StreamingResponse) throws(RequestError) {
        do {
            try IncomingResponseCheck.validate(streaming.head)
        } catch {
            streaming.body.buffer.terminate()
            throw error
        }
    }

    /// Reads a whole streamed body of at most `limit` bytes, reporting progress as it arrives; a longer body stops
    /// the stream (which closes the connection) and fails with ``RequestError/Kind/responseTooLarge``.
    private nonisolated(nonsending) static func collect(
        _ streaming: StreamingResponse, upTo limit: Int, progress: @Sendable (TransferProgress) -> Void
    ) async throws -> Data {
        let total = streaming.expectedLength
        var body = Data()
        var limiter = ResponseBodyLimiter(maxBytes: limit)
        progress(TransferProgress(completedBytes: 0, totalBytes: total))
        do {
            for try await chunk in streaming.body {
                try limiter.add(chunk.count, response: streaming.head)
                body.append(chunk)
                progress(TransferProgress(completedBytes: Int64(body.count), totalBytes: total))
            }
        } catch {
            streaming.body.buffer.terminate()
            throw error
        }
        return body
    }

    /// `request` with the jar's cookies added, and the `Cookie` header it had before (the request's own cookies,
    /// which a redirect to the same origin keeps). A built request stays one.
    @inline(never)
    private func withJarCookies(
        _ request: TransferRequest.Head
    ) -> (TransferRequest.Head, explicitCookies: String?) {
        guard let cookieJar else { return (request, nil) }
        switch request {
        case .built(let built):
            let explicitCookies = built.value(forField: "Cookie")
            guard let cookies = cookieJar.cookieHeader(for: built.url, adding: explicitCookies) else {
                return (request, explicitCookies)
            }
            return (.built(built.settingField("Cookie", cookies)), explicitCookies)
        case .given(var urlRequest):
            let explicitCookies = urlRequest.value(forHTTPHeaderField: "Cookie")
            cookieJar.addCookies(to: &urlRequest)
            return (.given(urlRequest), explicitCookies)
        }
    }

    /// The built request with every one of `interceptors` applied: as it is when there are none.
    private nonisolated(nonsending) func adapted(
        by interceptors: [any Interceptor]
    ) async throws(RequestError) -> TransferRequest.Head {
        if interceptors.isEmpty { return .built(built) }
        var request = built.makeURLRequest()
        for interceptor in interceptors {
            do {
                request = try await interceptor.adapt(request)
            } catch {
                throw Self.interceptorError(error, action: "adapting the request")
            }
        }
        return .given(request)
    }

    private static func interceptorError(_ error: any Error, action: String) -> RequestError {
        if let error = error as? RequestError { return error }
        if error is CancellationError { return RequestError.cancelled(underlyingError: error) }
        return RequestError(kind: .interceptorFailed, underlyingError: error, detail: "an interceptor failed \(action)")
    }
}
