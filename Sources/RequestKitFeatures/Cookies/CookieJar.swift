import Foundation
import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stores the cookies responses set and sends the matching ones with later requests, like a browser.
///
/// Attach one to a ``Client`` (``Client/Configuration/cookieJar``) or to a request with `UseCookies(jar)`.
/// Storing and matching follow RFC 6265:
///
/// - A cookie is host-only unless it has a `Domain`, which must domain-match the host that set it (the host
///   itself or a parent of it) and have at least two labels: `Domain=com` or `Domain=localhost` from another
///   host is ignored. A host that is an IP address only ever gets host-only cookies (a `Domain` other than the
///   address itself is ignored), so `Domain=0.0.1` from `127.0.0.1` never reaches `10.0.0.1`.
/// - A `Secure` cookie is stored only from an HTTPS response and sent only over HTTPS.
/// - Path prefix matching, and expiry by `Max-Age` (which wins) or `Expires`.
///
/// A cookie set again replaces the old one; an expired one deletes it. Cookies the request sets itself with
/// `Cookie` come first. Redirects follow the same rules: each hop gets exactly the jar's cookies for its URL.
///
/// ```swift
/// let jar = CookieJar()
/// let client = Client(baseURL: url) { $0.cookieJar = jar }
/// _ = try await client.send(Request { Path("login") })   // Set-Cookie: session=abc
/// _ = try await client.send(Request { Path("me") })      // Cookie: session=abc
/// jar.cookies(for: url)
/// ```
public final class CookieJar: Sendable {
    private let storage = CookieStorage()

    /// Creates an empty jar.
    ///
    /// ```swift
    /// let jar = CookieJar()
    /// ```
    public init() {}

    /// Every cookie stored, in the order they were first set.
    ///
    /// ```swift
    /// jar.allCookies.map(\.name)
    /// ```
    public var allCookies: [ResponseCookie] { storage.live(now: Date()).map(\.cookie) }

    /// The cookies a request to `url` would send, longest path first.
    ///
    /// ```swift
    /// jar.cookies(for: server.url("/api"))
    /// ```
    public func cookies(for url: URL) -> [ResponseCookie] {
        guard let host = url.host?.lowercased() else { return [] }
        let path = url.path.isEmpty ? "/" : url.path
        let isSecure = url.scheme?.lowercased() == "https"
        return storage.live(now: Date())
            .filter { $0.matches(host: host, path: path, isSecure: isSecure) }
            .sorted { $0.path.count > $1.path.count }
            .map(\.cookie)
    }

    /// Stores the cookies of a response received from `url`. A cookie whose name is not a token, or whose value
    /// has a control character (which could never be sent), is ignored, as RFC 6265 asks.
    ///
    /// ```swift
    /// jar.store(response.cookies, from: response.url!)
    /// ```
    public func store(_ cookies: [ResponseCookie], from url: URL) {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return }
        let isSecure = url.scheme?.lowercased() == "https"
        let now = Date()
        for cookie in cookies {
            if cookie.isSecure && !isSecure { continue }
            guard let scope = Self.domainScope(of: cookie, host: host) else { continue }
            // A name or value with a control character could never be sent (RFC 6265's cookie-octet has none).
            if !HTTPSyntax.isToken(cookie.name) || HTTPSyntax.invalidValueByte(in: cookie.value) != nil { continue }
            let expiry: Date? =
                if let maxAge = cookie.maxAge { now.addingTimeInterval(Double(maxAge)) } else { cookie.expires }
            let stored = StoredCookie(
                cookie: cookie, domain: scope.domain, isHostOnly: scope.isHostOnly,
                path: cookie.path ?? Self.defaultPath(for: url), expiry: expiry)
            storage.replace(stored, now: now)
        }
    }

    /// The domain a cookie from `host` is stored under and whether it is host-only, or nil when its `Domain`
    /// may not be set by `host` (RFC 6265 section 5.3, steps 4 to 6).
    static func domainScope(of cookie: ResponseCookie, host: String) -> (domain: String, isHostOnly: Bool)? {
        guard let domain = cookie.domain, domain != host else { return (host, true) }
        if isIPAddress(host) { return nil }
        guard host.hasSuffix("." + domain), domain.contains("."), !domain.hasSuffix(".") else { return nil }
        return (domain, false)
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name (RFC 6265 section 5.1.3).
    static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == 4
            && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 3 && label.allSatisfy(\.isASCII)
                    && Int(label).map { (0...255).contains($0) } == true
            }
    }

    /// Removes every cookie.
    ///
    /// ```swift
    /// jar.removeAll()
    /// ```
    public func removeAll() { storage.removeAll() }

    /// Adds the jar's cookies for the request's URL to its `Cookie` header (after the cookies it has already).
    package func addCookies(to request: inout URLRequest) {
        guard let url = request.url,
            let cookies = cookieHeader(for: url, adding: request.value(forHTTPHeaderField: "Cookie"))
        else { return }
        request.setValue(cookies, forHTTPHeaderField: "Cookie")
    }

    /// The `Cookie` header for a request to `url` that has `existing` (its own cookies) already: the jar's cookies
    /// for `url` after those; nil when the jar has none for it.
    ///
    /// ```swift
    /// let header = jar.cookieHeader(for: url, adding: "theme=dark")  // "theme=dark; session=abc"
    /// ```
    package func cookieHeader(for url: URL, adding existing: String?) -> String? {
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        let joined = cookies.map(\.description).joined(separator: "; ")
        guard let existing, !existing.isEmpty else { return joined }
        return existing + "; " + joined
    }

    /// The default path of a cookie set without `Path` (RFC 6265 §5.1.4).
    static func defaultPath(for url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
