import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ``HTTP1Transport`` follows a redirect: the one place that decides whether and where a redirect goes.
///
/// The next request is made the way URLSession makes it: 301, 302, 303, 307 and 308 with a `Location`; 303 turns
/// any method but HEAD into GET, 301 and 302 turn POST into GET, and a request that becomes a GET loses its body
/// and `Content-Type`. Then, as `URLSessionTransport` does, a redirect to another origin than the original
/// request's drops the sensitive headers (``SensitiveData``), the client's cookie jar stores the
/// redirect's cookies and adds its own, and the request's ``RedirectPolicy`` (from `Redirects(_:)` or a client;
/// otherwise the transport's configuration) decides.
enum HTTP1Redirect {
    /// What to do after a response.
    enum Decision {
        /// Send this request next.
        case follow(URLRequest)
        /// Return the response as it is.
        case stop
    }

    /// The statuses that redirect.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Decides what follows `response`, the answer to `request`.
    ///
    /// - Parameters:
    ///   - response: The response, whose body is not needed.
    ///   - request: The request that got it.
    ///   - originalURL: The URL of the first request of the chain.
    ///   - count: The number of this redirect in the chain, from 1.
    ///   - configuration: The transport's configuration, for requests without a policy of their own.
    /// - Returns: The decision.
    /// - Throws: ``RequestError`` of kind `.tooManyRedirects` when the policy's limit is passed.
    static func decide(
        after response: Response, to request: URLRequest, originalURL: URL?, count: Int,
        configuration: HTTP1Transport.Configuration
    ) throws(RequestError) -> Decision {
        guard
            var next = nextRequest(status: response.statusCode, location: response.headers["Location"], after: request)
        else { return .stop }
        let options = TransferOptions.current
        let isSameOrigin = RedirectPolicy.isSameOrigin(originalURL, next.url)
        if !isSameOrigin {
            for name in options.sensitiveData.headerNames { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if let jar = options.cookieJar {
            if let url = response.url { jar.store(response.cookies, from: url) }
            next.setValue(isSameOrigin ? options.explicitCookies : nil, forHTTPHeaderField: "Cookie")
            jar.addCookies(to: &next)
        }
        let policy =
            options.redirects
            ?? (configuration.followsRedirects ? .follow(limit: configuration.maxRedirects) : .doNotFollow)
        switch policy.decide(response, next, count) {
        case .follow(let request):
            return .follow(request)
        case .stop:
            return .stop
        case .fail(let limit):
            throw RequestError(kind: .tooManyRedirects, response: response, detail: "more than \(limit) redirects")
        }
    }

    /// The request URLSession would send after `status` with `location`, or `nil` when the response is not a
    /// redirect that can be followed (no `Location`, or a scheme other than http and https).
    static func nextRequest(status: Int, location: String?, after request: URLRequest) -> URLRequest? {
        guard statuses.contains(status), let location, let current = request.url,
            let next = URL(string: location, relativeTo: current)?.absoluteURL,
            let scheme = next.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        var redirected = request
        redirected.url = next
        let method = request.httpMethod ?? "GET"
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            redirected.httpMethod = "GET"
            redirected.httpBody = nil
            redirected.httpBodyStream = nil
            redirected.setValue(nil, forHTTPHeaderField: "Content-Type")
            redirected.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        return redirected
    }
}
