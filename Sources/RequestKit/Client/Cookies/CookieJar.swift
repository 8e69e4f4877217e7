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
    /// jar.cookies(for: URL(string: "http://127.0.0.1:8080/api")!)
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

    /// Stores the cookies of a response received from `url`.
    ///
    /// ```swift
    /// jar.store(response.cookies, from: response.url!)
    /// ```
    public func store(_ cookies: [ResponseCookie], from url: URL) {
        guard let host = url.host?.lowercased() else { return }
        let now = Date()
        for cookie in cookies {
            if let domain = cookie.domain, host != domain, !host.hasSuffix("." + domain) { continue }
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

/// A cookie with the scope it was stored under.
struct StoredCookie: Sendable {
    let cookie: ResponseCookie
    let domain: String
    let isHostOnly: Bool
    let path: String
    let expiry: Date?

    func matches(host: String, path requestPath: String, isSecure: Bool) -> Bool {
        if cookie.isSecure && !isSecure { return false }
        let domainMatches = isHostOnly ? host == domain : host == domain || host.hasSuffix("." + domain)
        guard domainMatches else { return false }
        if requestPath == path { return true }
        guard requestPath.hasPrefix(path) else { return false }
        return path.hasSuffix("/") || requestPath.dropFirst(path.count).first == "/"
    }

    func isSameSlot(as other: StoredCookie) -> Bool {
        cookie.name == other.cookie.name && domain == other.domain && path == other.path
    }
}

/// The jar's cookies behind a lock.
private final class CookieStorage: @unchecked Sendable {
    // Safe: every access to `cookies` holds `lock`.
    private let lock = NSLock()
    private var cookies: [StoredCookie] = []

    func live(now: Date) -> [StoredCookie] {
        lock.withLock {
            cookies.removeAll { ($0.expiry ?? .distantFuture) <= now }
            return cookies
        }
    }

    func replace(_ cookie: StoredCookie, now: Date) {
        lock.withLock {
            let isExpired = (cookie.expiry ?? .distantFuture) <= now
            if let index = cookies.firstIndex(where: { $0.isSameSlot(as: cookie) }) {
                if isExpired { cookies.remove(at: index) } else { cookies[index] = cookie }
            } else if !isExpired {
                cookies.append(cookie)
            }
        }
    }

    func removeAll() {
        lock.withLock { cookies.removeAll() }
    }
}
