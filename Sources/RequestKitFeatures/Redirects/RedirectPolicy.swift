import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the request pipeline does with a redirect (a 3xx with `Location`), on every transport.
///
/// Whatever the policy, a redirect to another origin (scheme, host and port) drops `Authorization`, `Cookie`
/// and `Proxy-Authorization`, and every other sensitive header (``SensitiveData``: `X-Api-Key`, `X-Auth-Token` and
/// any the request or client adds), before the policy sees the new request; same-origin redirects keep them. A
/// cookie jar then adds exactly its own cookies for the new URL.
///
/// ```swift
/// Redirects(.follow(limit: 5))
/// Redirects(.doNotFollow)                       // the 3xx is returned as the response
/// Redirects(.custom { response, next in
///     next.url?.host == "127.0.0.1" ? next : nil  // nil returns the 3xx
/// })
/// ```
public struct RedirectPolicy: Sendable {
    /// The new request to send for a redirect, or nil to return the 3xx.
    package let decide: @Sendable (_ response: Response, _ newRequest: URLRequest, _ redirectCount: Int) -> Decision

    package enum Decision: Sendable {
        case follow(URLRequest)
        case stop
        case fail(limit: Int)
    }

    /// Follows up to `limit` redirects; one more fails with ``RequestError/Kind/tooManyRedirects``.
    ///
    /// ```swift
    /// Redirects(.follow(limit: 3))
    /// ```
    public static func follow(limit: Int = 10) -> RedirectPolicy {
        RedirectPolicy { _, request, count in count > limit ? .fail(limit: limit) : .follow(request) }
    }

    /// Follows up to 10 redirects: the default.
    public static let follow = RedirectPolicy.follow(limit: 10)

    /// Never follows: the redirect response itself is returned.
    public static let doNotFollow = RedirectPolicy { _, _, _ in .stop }

    /// Decides per redirect: return the new request, a modified one, or nil to return the 3xx response.
    /// The response has the status, headers and URL of the redirect, but no body.
    ///
    /// ```swift
    /// .custom { response, next in
    ///     var next = next
    ///     next.setValue("yes", forHTTPHeaderField: "X-Redirected")
    ///     return next
    /// }
    /// ```
    public static func custom(
        _ decide: @escaping @Sendable (_ response: Response, _ newRequest: URLRequest) -> URLRequest?
    ) -> RedirectPolicy {
        RedirectPolicy { response, request, _ in decide(response, request).map(Decision.follow) ?? .stop }
    }

    /// The method a redirect with `status` asks for after a request with `method`, as browsers do it: 303 turns any
    /// method but HEAD into GET, 301 and 302 turn POST into GET, and every other status keeps the method.
    ///
    /// ```swift
    /// RedirectPolicy.method(after: 303, from: "PUT")  // "GET"
    /// ```
    package static func method(after status: Int, from method: String) -> String {
        (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") ? "GET" : method
    }

    /// The headers a redirect that leaves the origin always drops, whatever ``SensitiveData`` says.
    package static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Whether two URLs share scheme, host and port (default ports filled in).
    package static func isSameOrigin(_ first: URL?, _ second: URL?) -> Bool {
        guard let first, let second else { return false }
        return origin(of: first) == origin(of: second)
    }

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
