import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stores the cookies responses set and sends the matching ones with later requests, like a browser.
///
/// Attach one to a ``Client`` (``Client/Configuration/cookieJar``) or to a request with `UseCookies(jar)`.
/// Matching follows RFC 6265: domain (host-only unless `Domain` is set), path prefix, `Secure` only over
/// HTTPS, and expiry by `Max-Age` or `Expires`. A cookie set again replaces the old one; an expired one
/// deletes it. Cookies the request sets itself with `Cookie` come first.
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
        guard let host = url.host?.lowercased() else { return }
        let now = Date()
        for cookie in cookies {
            if let domain = cookie.domain, host != domain, !host.hasSuffix("." + domain) { continue }
            // A name or value with a control character could never be sent (RFC 6265's cookie-octet has none).
            if !HTTPSyntax.isToken(cookie.name) || HTTPSyntax.invalidValueByte(in: cookie.value) != nil { continue }
            let expiry: Date? =
                if let maxAge = cookie.maxAge { now.addingTimeInterval(Double(maxAge)) } else { cookie.expires }
            let stored = StoredCookie(
                cookie: cookie, domain: cookie.domain ?? host, isHostOnly: cookie.domain == nil,
                path: cookie.path ?? Self.defaultPath(for: url), expiry: expiry)
            storage.replace(stored, now: now)
        }
    }

    /// Removes every cookie.
    ///
    /// ```swift
    /// jar.removeAll()
    /// ```
    public func removeAll() { storage.removeAll() }

    /// Adds the matching cookies to a request's `Cookie` header.
    func addCookies(to request: inout URLRequest) {
        guard let url = request.url else { return }
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return }
        let joined = cookies.map(\.description).joined(separator: "; ")
        if let existing = request.value(forHTTPHeaderField: "Cookie"), !existing.isEmpty {
            request.setValue(existing + "; " + joined, forHTTPHeaderField: "Cookie")
        } else {
            request.setValue(joined, forHTTPHeaderField: "Cookie")
        }
    }

    /// The default path of a cookie set without `Path` (RFC 6265 §5.1.4).
    static func defaultPath(for url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
