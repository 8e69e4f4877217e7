import Foundation
import RequestKitFeatures
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Exchange {
    /// The cache this request goes through, if any.
    var cache: ResponseCache? { parts.hasOptions ? parts[option: ResponseCacheKey.self] : nil }

    /// One hop through `cache` (``ResponseCache``): answered from storage, validated with the server, or sent and
    /// stored. Each hop of a redirect is a request of its own, so redirects are stored as responses. Out of line:
    /// requests without a cache never take its frame.
    @inline(never)
    nonisolated(nonsending) func cachedTransfer(
        _ request: TransferRequest.Head, body: RequestBody?, sink: ResponseSink, cache: ResponseCache
    ) async -> Result<Delivery, RequestError> {
        guard let url = request.url else { return await transfer(request, body: body, sink: sink) }
        let cacheRequest = cache.request(
            method: Self.method(of: request), url: url, headers: Self.headers(of: request),
            rule: parts[option: CachePolicyKey.self], sensitiveData: sensitiveData)
        guard cacheRequest.isLookupMethod else {
            let requestTime = cache.now
            let result = await transfer(request, body: body, sink: sink)
            if case .success(let delivery) = result {
                cache.invalidate(after: delivery.response, to: cacheRequest)
                Self.store(delivery, for: cacheRequest, requestTime: requestTime, in: cache)
            }
            return reported(result, request)
        }
        // One reading of the clock decides and dates the answer.
        let now = cache.now
        switch cache.decision(for: cacheRequest, at: now) {
        case .use(let stored, let status):
            return reported(deliver(stored.answer(to: cacheRequest, status: status, at: now), sink: sink), request)
        case .unsatisfiable:
            var response = Response(status: HTTPStatus(code: 504), url: url)
            response.cacheStatus = .unsatisfied
            return reported(deliver(response, sink: sink), request)
        case .forward:
            let requestTime = cache.now
            let result = await transfer(request, body: body, sink: sink)
            if case .success(let delivery) = result {
                Self.store(delivery, for: cacheRequest, requestTime: requestTime, in: cache)
            }
            return reported(result, request)
        case .validate(let stored, let options):
            let conditional = cacheRequest.isConditional ? request : Self.validating(request, with: stored)
            if options.mayServeWhileRevalidating, !cacheRequest.isConditional {
                refreshInBackground(conditional, stored: stored, cacheRequest: cacheRequest, cache: cache)
                return reported(
                    deliver(stored.answer(to: cacheRequest, status: .stale, at: cache.now), sink: sink), request)
            }
            let requestTime = cache.now
            let result = await transfer(conditional, body: body, sink: sink)
            let outcome = await validated(
                result, stored: stored, cacheRequest: cacheRequest, options: options, requestTime: requestTime,
                cache: cache)
            switch outcome {
            case .network(let result): return reported(result, request)
            case .stored(let response): return reported(deliver(response, sink: sink), request)
            }
        }
    }

    /// What a validation came to: the server's answer, or a response from storage.
    private enum ValidationOutcome {
        case network(Result<Delivery, RequestError>)
        case stored(Response)
    }

    /// The outcome of sending a validation of `stored`: a `304` that selects it freshens it; an error or a 5xx
    /// that `stale-if-error` covers serves it stale; anything else is the server's new answer, stored if it may be.
    /// A stored response served after a validation carries the validation's attempt in its metrics: the request
    /// went to the network.
    private nonisolated(nonsending) func validated(
        _ result: Result<Delivery, RequestError>, stored: CachedResponse, cacheRequest: CacheRequest,
        options: CacheDecision.ValidationOptions, requestTime: Date, cache: ResponseCache
    ) async -> ValidationOutcome {
        let delivery: Delivery
        switch result {
        case .failure(let error):
            guard options.mayServeOnError, error.kind != .cancelled, !Task.isCancelled else { return .network(result) }
            var answer = stored.answer(to: cacheRequest, status: .stale, at: cache.now)
            answer.metrics = error.metrics ?? RequestMetrics()
            return .stored(answer)
        case .success(let delivered): delivery = delivered
        }
        let status = delivery.response.statusCode
        if status == 304, stored.isSelected(by: delivery.response.headers) {
            if let cookieJar { cookieJar.store(delivery.response.cookies, from: cacheRequest.url) }
            let updated = cache.freshen(
                stored, for: cacheRequest, with: delivery.response.headers, requestTime: requestTime)
            if cacheRequest.isConditional {
                var response = delivery.response
                response.cacheStatus = .revalidated
                return .network(.success(Delivery(response: response, body: delivery.body)))
            }
            await delivery.discard()
            var answer = updated.answer(to: cacheRequest, status: .revalidated, at: cache.now)
            answer.metrics = delivery.response.metrics
            return .stored(answer)
        }
        if options.mayServeOnError, [500, 502, 503, 504].contains(status) {
            await delivery.discard()
            var answer = stored.answer(to: cacheRequest, status: .stale, at: cache.now)
            answer.metrics = delivery.response.metrics
            return .stored(answer)
        }
        Self.store(delivery, for: cacheRequest, requestTime: requestTime, in: cache)
        return .network(result)
    }

    /// Stores `delivery` when it may be stored: a body in memory at once, a streamed body as its consumer reads
    /// it (``ResponseCache/streamedEntry(for:to:requestTime:)``), stored when read to its end.
    private static func store(
        _ delivery: Delivery, for cacheRequest: CacheRequest, requestTime: Date, in cache: ResponseCache
    ) {
        guard let body = delivery.body else {
            cache.store(delivery.response, for: cacheRequest, requestTime: requestTime)
            return
        }
        if let entry = cache.streamedEntry(for: delivery.response, to: cacheRequest, requestTime: requestTime) {
            body.buffer.setTap(entry)
        }
    }

    /// Validates `stored` in a task of its own, at most one per URL at a time (`stale-while-revalidate`).
    private func refreshInBackground(
        _ conditional: TransferRequest.Head, stored: CachedResponse, cacheRequest: CacheRequest,
        cache: ResponseCache
    ) {
        let exchange = self
        cache.refreshes.start(cacheRequest.key) {
            let requestTime = cache.now
            let result = await exchange.transfer(conditional, body: nil, sink: .memory(progress: nil))
            _ = await exchange.validated(
                result, stored: stored, cacheRequest: cacheRequest, options: .init(), requestTime: requestTime,
                cache: cache)
        }
    }

    /// `response` delivered to `sink`: whole in memory (held to the request's body limit, as a network response
    /// is), or as a stream of its stored bytes.
    private func deliver(_ response: consuming Response, sink: ResponseSink) -> Result<Delivery, RequestError> {
        switch sink {
        case .memory(let progress):
            let limit = responseLimits.maxBodyBytes
            guard response.body.count <= limit else {
                var head = response
                head.body = Data()
                return .failure(RequestError.responseTooLarge(limit: limit, response: head))
            }
            if let progress {
                let count = Int64(response.body.count)
                progress(TransferProgress(completedBytes: count, totalBytes: count))
            }
            return .success(Delivery(response: response, body: nil))
        case .consumer:
            let body = response.body
            var head = response
            head.body = Data()
            return .success(Delivery(response: head, body: ResponseBodyStream(body)))
        }
    }

    /// `result`, reported to the monitors with the response's ``Response/cacheStatus``.
    private func reported(
        _ result: consuming Result<Delivery, RequestError>, _ request: TransferRequest.Head
    ) -> Result<Delivery, RequestError> {
        // Read only when set: the default, no monitor, costs a copy of the shared empty list.
        guard parts.hasOption(EventMonitorsKey.self) else { return result }
        let monitors = self.monitors
        guard monitors.monitoredEvents.contains(.cacheConsulted), case .success(let delivery) = copy result else {
            return result
        }
        let urlRequest = request.urlRequest
        for monitor in monitors where monitor.monitoredEvents.contains(.cacheConsulted) {
            monitor.cacheConsulted(urlRequest, status: delivery.response.cacheStatus, response: delivery.response)
        }
        return result
    }

    /// `request` made conditional on `stored`'s validators: `If-None-Match` with its `ETag`, `If-Modified-Since`
    /// with its `Last-Modified`.
    private static func validating(_ request: TransferRequest.Head, with stored: CachedResponse) -> TransferRequest.Head
    {
        let fields = [("If-None-Match", stored.entityTag), ("If-Modified-Since", stored.lastModified)]
        switch request {
        case .built(var built):
            for (name, value) in fields where value != nil { built = built.settingField(name, value) }
            return .built(built)
        case .given(var urlRequest):
            for (name, value) in fields where value != nil { urlRequest.setValue(value, forHTTPHeaderField: name) }
            return .given(urlRequest)
        }
    }

    private static func method(of request: TransferRequest.Head) -> String {
        switch request {
        case .built(let built): built.method
        case .given(let urlRequest): urlRequest.httpMethod ?? "GET"
        }
    }

    private static func headers(of request: TransferRequest.Head) -> HTTPHeaders {
        switch request {
        case .built(let built): built.headers
        case .given(let urlRequest):
            HTTPHeaders((urlRequest.allHTTPHeaderFields ?? [:]).map { HTTPHeader(name: $0.key, value: $0.value) })
        }
    }
}
