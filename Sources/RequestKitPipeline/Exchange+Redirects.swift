import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Exchange {
    /// Whether `status` redirects: 301, 302, 303, 307 or 308.
    static func isRedirect(_ status: Int) -> Bool {
        switch status {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }

    /// Sends `first` and follows its redirects: the one place RequestKit follows a redirect, for every verb and
    /// every transport (transports return a 3xx as it is).
    ///
    /// Each hop is checked before it is sent (``OutgoingRequestCheck``), its cookies go to the jar, and the next
    /// request is made as browsers make it: 303 turns any method but HEAD into GET, 301 and 302 turn POST into GET,
    /// and a request that becomes a GET loses its body and `Content-Type`; 307 and 308 keep the method and send the
    /// body again. A redirect to another origin (scheme, host or port) than `first`'s drops `Authorization`,
    /// `Cookie` and `Proxy-Authorization`, and every other sensitive header (``SensitiveData``: `X-Api-Key`,
    /// `X-Auth-Token` and the names a client or ``Sensitive`` adds); the jar then adds its own cookies for the new
    /// URL. The policy then decides; a redirect it follows must go to an http or https URL.
    ///
    /// Inlined into ``run(sink:)``: one async frame fewer on every request.
    @inline(__always)
    nonisolated(nonsending) func follow(
        _ first: TransferRequest.Head, explicitCookies: String?, sink: ResponseSink
    ) async -> Result<Delivery, RequestError> {
        var request = first
        var body = self.body
        var count = 0
        // The attempts of the hops before this one: a response's metrics show every hop.
        var earlier: [RequestMetrics.Attempt] = []
        // Only interceptors make the first request a given one: a jar's cookies keep a built request built.
        let isAdapted = if case .given = first { true } else { false }
        let traceparent = Self.sentTraceparent(
            first, built: parts.hasOptions ? parts[option: TraceparentKey.self] : nil, isAdapted: isAdapted)
        let cookieJar = self.cookieJar
        let cache = self.cache
        // A request nothing changed since it was built was checked when it was built.
        let isChanged = cookieJar != nil || isAdapted
        while true {
            if isChanged || count > 0 {
                do {
                    try OutgoingRequestCheck.validate(request)
                } catch {
                    return .failure(error)
                }
            }
            // The delivery is moved out of the result, not copied: most responses go straight back.
            var delivery: Delivery
            let transferred =
                if let cache { await cachedTransfer(request, body: body, sink: sink, cache: cache) } else {
                    await transfer(request, body: body, sink: sink)
                }
            switch consume transferred {
            case .success(let delivered): delivery = delivered
            case .failure(let error): return .failure(Self.prepending(earlier, to: error, traceparent: traceparent))
            }
            if let traceparent, !delivery.response.metrics.attempts.isEmpty {
                delivery.response.metrics.attempts[delivery.response.metrics.attempts.count - 1].traceparent =
                    traceparent
            }
            if !earlier.isEmpty { delivery.response.metrics.attempts.insert(contentsOf: earlier, at: 0) }
            // A response served from a cache set its cookies when it came from the network.
            if let cookieJar, delivery.response.cacheStatus == .network, let url = delivery.response.url ?? request.url
            {
                cookieJar.store(delivery.response.cookies, from: url)
            }
            guard Self.isRedirect(delivery.response.statusCode) else { return .success(consume delivery) }
            switch await redirect(
                delivery, of: request.urlRequest, firstURL: first.url, explicitCookies: explicitCookies,
                count: count + 1)
            {
            case .deliver(let outcome):
                return outcome
            case .follow(let next, let keepsBody):
                earlier = delivery.response.metrics.attempts
                count += 1
                if !keepsBody { body = nil }
                request = .given(next)
            }
        }
    }

    /// The `traceparent` a request was sent with: the one ``TraceContext`` set when it was built (`built`), or, when
    /// interceptors adapted it, the field as they left it: a tracer's propagation replaces ``TraceContext``'s, and
    /// the metrics report the one sent.
    static func sentTraceparent(_ head: TransferRequest.Head, built: String?, isAdapted: Bool) -> String? {
        guard isAdapted, case .given(let request) = head else { return built }
        return request.value(forHTTPHeaderField: "traceparent")
    }

    /// `error` with the attempts before it first in its metrics.
    static func prepending(
        _ earlier: [RequestMetrics.Attempt], to error: RequestError, traceparent: String? = nil
    ) -> RequestError {
        guard !earlier.isEmpty || traceparent != nil else { return error }
        var error = error
        var failed = error.metrics?.attempts ?? []
        if let traceparent, !failed.isEmpty { failed[failed.count - 1].traceparent = traceparent }
        error.metrics = RequestMetrics(attempts: earlier + failed)
        return error
    }

    /// What to do after a redirect status: deliver (the response itself, or a failure), or send the next request.
    private enum RedirectStep {
        case deliver(Result<Delivery, RequestError>)
        case follow(URLRequest, keepsBody: Bool)
    }

    /// The next request after `delivery`, the redirect `request` got (the `count`th) on the way from `firstURL`, as
    /// the policy decides it. Out of line: a task keeps the frames its calls took until it ends, and most responses
    /// do not redirect.
    @inline(never)
    private nonisolated(nonsending) func redirect(
        _ delivery: Delivery, of request: URLRequest, firstURL: URL?, explicitCookies: String?, count: Int
    ) async -> RedirectStep {
        let response = delivery.response
        guard let location = response.headers["Location"], let current = request.url,
            let target = URL(string: location, relativeTo: current)?.absoluteURL
        else { return .deliver(.success(delivery)) }
        var next = request
        next.url = target
        let method = request.httpMethod ?? "GET"
        var keepsBody = true
        let status = response.statusCode
        if RedirectPolicy.method(after: status, from: method) != method {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
            keepsBody = false
        }
        let isSameOrigin = RedirectPolicy.isSameOrigin(firstURL, target)
        if !isSameOrigin {
            for name in RedirectPolicy.credentialHeaders { next.setValue(nil, forHTTPHeaderField: name) }
            for name in (next.allHTTPHeaderFields ?? [:]).keys where sensitiveData.isSensitive(header: name) {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        if let cookieJar {
            next.setValue(isSameOrigin ? explicitCookies : nil, forHTTPHeaderField: "Cookie")
            cookieJar.addCookies(to: &next)
        }
        var head = response
        head.body = Data()
        switch redirectPolicy.decide(head, next, count) {
        case .stop:
            return .deliver(.success(delivery))
        case .fail(let limit):
            await delivery.discard()
            return .deliver(
                .failure(RequestError(kind: .tooManyRedirects, response: head, detail: "more than \(limit) redirects")))
        case .follow(let decided):
            let scheme = decided.url?.scheme?.lowercased()
            // A Unix socket URL is followed only to the socket the request went through: a server never sends
            // the client to another socket on its machine.
            let staysOnSocket =
                HTTPSyntax.isUnixSocketScheme(scheme ?? "") && scheme == current.scheme?.lowercased()
                && decided.url?.host(percentEncoded: true) == current.host(percentEncoded: true)
            guard scheme == "http" || scheme == "https" || staysOnSocket else {
                await delivery.discard()
                return .deliver(
                    .failure(
                        RequestError(
                            kind: .redirectRefused, response: head,
                            detail: "the redirect to \"\(decided.url?.absoluteString ?? location)\" was not followed: "
                                + "only http and https URLs are, and a Unix socket's to the same socket")))
            }
            await delivery.discard()
            return .follow(decided, keepsBody: keepsBody && decided.httpMethod == request.httpMethod)
        }
    }
}
