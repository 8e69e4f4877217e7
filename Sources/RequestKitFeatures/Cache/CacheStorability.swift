import Foundation
import RequestKitModel

/// Whether a private cache may store a response (RFC 9111 §3), a pure function of the request and the response.
///
/// Stored: a final response to GET (or to POST with explicit freshness and a `Content-Location` naming its URL), not `206` or `304`, with neither request nor response `no-store`, no
/// `Vary: *`, and something that makes it reusable: `max-age`, `Expires`, `public`, `private`, `no-cache` (stored,
/// always validated), or a status cacheable by default. `must-understand` stores only the statuses understood here
/// (and then overrides `no-store`). A response to a request with `Authorization` is stored only when it says
/// `public`, `must-revalidate` or `s-maxage` (§3.5). `private` is fine: this is a private cache.
///
/// ```swift
/// #expect(CacheStorability.canStore(response, for: request))
/// ```
enum CacheStorability {
    /// The statuses whose caching this cache understands, for `must-understand`.
    static let understoodStatuses: Set<Int> = Freshness.heuristicallyCacheable.union([302, 303, 307])

    /// Whether `response` to `request` may be stored.
    static func canStore(_ response: Response, for request: CacheRequest) -> Bool {
        guard request.isStorableMethod, !request.forbidsStoring else { return false }
        if request.method == "POST" {
            guard let location = response.headers["Content-Location"],
                let target = URL(string: location, relativeTo: request.url),
                CacheRequest.key(for: target.absoluteURL) == request.urlKey,
                CacheControl(response.headers).contains("max-age") || response.headers.contains("Expires")
            else { return false }
        }
        let status = response.statusCode
        guard status >= 200, status != 206, status != 304 else { return false }
        let control = CacheControl(response.headers)
        if control.contains("must-understand") {
            guard understoodStatuses.contains(status) else { return false }
        } else if control.contains("no-store") {
            return false
        }
        guard !CachedResponse.varyNames(of: response.headers).contains("*") else { return false }
        if request.headers.contains("Authorization"),
            !(control.contains("public") || control.contains("must-revalidate") || control.contains("s-maxage"))
        {
            return false
        }
        return control.contains("max-age") || response.headers.contains("Expires") || control.contains("public")
            || control.contains("private") || control.contains("no-cache")
            || Freshness.heuristicallyCacheable.contains(status)
    }
}
