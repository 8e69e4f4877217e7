import Foundation
import RequestKitModel

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
