import Foundation

/// The jar's cookies behind a lock.
final class CookieStorage: @unchecked Sendable {
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
