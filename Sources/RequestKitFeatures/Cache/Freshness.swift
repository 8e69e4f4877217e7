import Foundation

/// How fresh a stored response is at a given moment (RFC 9111 §4.2): its freshness lifetime and current age, in
/// seconds. A pure value: the same stored response and moment always give the same answer.
///
/// The lifetime comes from `max-age`, else `Expires` minus `Date`, else the heuristic (a tenth of the time since
/// `Last-Modified`) for a status that allows it (§4.2.2) and only when nothing explicit was said. A `max-age`
/// that cannot be read, or an `Expires` that is not a date, makes the response stale. `s-maxage` is for shared
/// caches and is ignored.
///
/// ```swift
/// let freshness = Freshness(of: stored, at: now)
/// if freshness.isFresh { serve(stored) }
/// ```
struct Freshness: Sendable, Hashable {
    /// How long the response stays fresh after it was generated, in seconds.
    let lifetime: Double
    /// How old the response is now, in seconds.
    let age: Double

    /// The status codes that are cacheable by default, to which the heuristic applies (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    init(lifetime: Double, age: Double) {
        self.lifetime = lifetime
        self.age = age
    }

    /// The freshness of `stored` at `now`.
    init(of stored: CachedResponse, at now: Date) {
        self.init(lifetime: Self.lifetime(of: stored), age: Self.age(of: stored, at: now))
    }

    /// Whether the response is fresh: its age is below its lifetime.
    var isFresh: Bool { lifetime > age }

    /// How long ago it became stale, in seconds (negative while fresh).
    var staleness: Double { age - lifetime }

    /// The freshness lifetime of `stored` (RFC 9111 §4.2.1).
    static func lifetime(of stored: CachedResponse) -> Double {
        let fields = stored.fields
        switch fields.directives.maxAge {
        case .valid(let seconds): return Double(seconds)
        case .invalid, .noValue: return 0
        case .absent: break
        }
        let date = fields.date ?? stored.responseTime
        if let expires = fields.expires { return max(0, expires.timeIntervalSince(date)) }
        guard heuristicallyCacheable.contains(stored.status) || fields.directives.isPublic,
            let modified = fields.lastModified
        else { return 0 }
        return max(0, date.timeIntervalSince(modified) / 10)
    }

    /// The current age of `stored` at `now` (RFC 9111 §4.2.3).
    static func age(of stored: CachedResponse, at now: Date) -> Double {
        let date = stored.fields.date ?? stored.responseTime
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(date))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedAge = stored.fields.age + responseDelay
        let initialAge = max(apparentAge, correctedAge)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        return initialAge + residentTime
    }
}
