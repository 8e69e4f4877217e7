import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request's trip through the client features: cookies, interceptors, monitors, redirects and retries.
struct Exchange: Sendable {
    let method: HTTPMethod
    let transport: any Transport
    let interceptors: [any Interceptor]
    let monitors: [any EventMonitor]
    let retryPolicy: RetryPolicy
    let redirectPolicy: RedirectPolicy?
    let cookieJar: CookieJar?
    let clock: RequestClock
    let limits: ResponseLimits
    let sensitiveData: SensitiveData

    init(_ parts: RequestParts, transport: any Transport) {
        method = parts.method
        self.transport = transport
        interceptors = parts[option: InterceptorsKey.self]
        monitors = parts[option: EventMonitorsKey.self]
        retryPolicy = parts[option: RetryPolicyKey.self]
        redirectPolicy = parts[option: RedirectPolicyKey.self]
        cookieJar = parts[option: CookieJarKey.self]
        clock = parts.clock
        limits = parts[option: ResponseLimitsKey.self]
        sensitiveData = parts[option: SensitiveDataKey.self]
    }

    /// Sends `original`, adapting each attempt and retrying as the interceptors and the policy decide.
    func run(_ original: URLRequest) async throws(RequestError) -> Response {
        var attempt = 1
        var policyAttempt = 1
        var retriesByInterceptor = Array(repeating: 0, count: interceptors.count)
        while true {
            var request = try await adapted(original)
            let explicitCookies = request.value(forHTTPHeaderField: "Cookie")
            cookieJar?.addCookies(to: &request)
            for monitor in monitors { monitor.requestStarted(request, attempt: attempt) }
            let start = DispatchTime.now()
            let options = TransferOptions(
                redirects: redirectPolicy, cookieJar: cookieJar, explicitCookies: explicitCookies, limits: limits,
                sensitiveData: sensitiveData)
            let outcome = await send(request, options: options)
            let duration = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            switch outcome {
            case .success(let response):
                if let cookieJar, let url = response.url ?? request.url { cookieJar.store(response.cookies, from: url) }
                for monitor in monitors {
                    monitor.responseReceived(response, for: request, duration: duration, attempt: attempt)
                }
            case .failure(let error):
                for monitor in monitors {
                    monitor.requestFailed(error, for: request, duration: duration, attempt: attempt)
                }
                if error.kind == .cancelled || Task.isCancelled { throw error }
            }

            var delay: Double?
            for (index, interceptor) in interceptors.enumerated() {
                let context = RetryContext(attempt: attempt, previousRetries: retriesByInterceptor[index])
                let decision: RetryDecision
                do {
                    decision = try await interceptor.retry(request, outcome: outcome, context: context)
                } catch {
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
            guard let delay else { return try outcome.get() }
            attempt += 1
            for monitor in monitors { monitor.requestRetrying(request, nextAttempt: attempt, delay: delay) }
            do {
                try await clock.sleep(seconds: delay)
            } catch {
                throw RequestError.cancelled(underlyingError: error)
            }
        }
    }

    /// The request with every interceptor applied, checked again as a built request is.
    func adapted(_ original: URLRequest) async throws(RequestError) -> URLRequest {
        guard !interceptors.isEmpty else { return original }
        var request = original
        for interceptor in interceptors {
            do {
                request = try await interceptor.adapt(request)
            } catch {
                throw Self.interceptorError(error, action: "adapting the request")
            }
        }
        try RequestParts.validateAdapted(request)
        return request
    }

    /// One attempt through the transport, with this request's redirect policy.
    private func send(_ request: URLRequest, options: TransferOptions) async -> Result<Response, RequestError> {
        do {
            try Task.checkCancellation()
            let transport = self.transport
            let response = try await TransferOptions.$current.withValue(options) {
                try await transport.send(request)
            }
            // The transports in this package stop reading at the limit; this holds it for any other transport.
            var limiter = ResponseBodyLimiter(options.limits, isBuffered: true)
            try limiter.add(
                response.body.count,
                response: Response(status: response.status, headers: response.headers, url: response.url))
            return .success(response)
        } catch {
            return .failure(RequestExecutor.requestError(for: error))
        }
    }

    static func interceptorError(_ error: any Error, action: String) -> RequestError {
        if let error = error as? RequestError { return error }
        if error is CancellationError { return RequestError.cancelled(underlyingError: error) }
        return RequestError(kind: .interceptorFailed, underlyingError: error, detail: "an interceptor failed \(action)")
    }
}
