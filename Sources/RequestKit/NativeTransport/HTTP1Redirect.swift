import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ``HTTP1Transport`` follows a redirect, the way URLSession does: 301, 302, 303, 307 and 308 with a
/// `Location`; 303 turns any method but HEAD into GET, 301 and 302 turn POST into GET, and a request that
/// becomes a GET loses its body and its `Content-Type`. `Authorization` and `Cookie` are not sent to another
/// origin.
///
/// This is the one place that decides whether and where a redirect goes.
enum HTTP1Redirect {
    /// The statuses that redirect.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The request to send after `status` with `location`, or `nil` when the response is not a redirect that
    /// can be followed (no `Location`, or a scheme other than http and https).
    ///
    /// - Parameters:
    ///   - status: The response status.
    ///   - location: The response's `Location` header.
    ///   - request: The request that got the response.
    /// - Returns: The next request.
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
        if next.scheme?.lowercased() != current.scheme?.lowercased() || next.host != current.host
            || next.port != current.port
        {
            redirected.setValue(nil, forHTTPHeaderField: "Authorization")
            redirected.setValue(nil, forHTTPHeaderField: "Cookie")
        }
        return redirected
    }
}
