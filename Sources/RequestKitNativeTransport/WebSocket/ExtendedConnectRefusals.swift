import Foundation

/// The origins whose server picked HTTP/2 for a WebSocket without allowing extended CONNECT (RFC 8441), each for a
/// while: a later socket that prefers HTTP/2 to the same origin (same host, port, TLS settings and proxy) offers
/// HTTP/1.1 only, and costs one connection instead of two. Browsers remember a protocol an origin does not speak in
/// the same way, for a while that doubles with each refusal.
///
/// A refusal is remembered for ``firstPeriod``; one that comes again, after the last expired, for twice the last
/// period, up to ``longestPeriod``. A server that allows extended CONNECT is forgotten at once. At most ``capacity``
/// origins are kept: a new one replaces the one whose period ends first.
///
/// ```swift
/// let refusals = ExtendedConnectRefusals()
/// refusals.insert(key, now: loop.now())        // the server's SETTINGS did not allow extended CONNECT
/// if !refusals.contains(key, now: loop.now()) { offerHTTP2() }
/// ```
final class ExtendedConnectRefusals: @unchecked Sendable {
    /// How long a first refusal is remembered: five minutes, in nanoseconds.
    static let firstPeriod: UInt64 = 300 * 1_000_000_000
    /// The longest a refusal is remembered: a day, in nanoseconds.
    static let longestPeriod: UInt64 = 86_400 * 1_000_000_000
    /// The most origins remembered at once.
    static let capacity = 256

    /// One origin's refusal: until when it holds, and how long it held last.
    private struct Refusal {
        var until: UInt64
        var period: UInt64
    }

    // Safe: `refusals` is only touched under `lock`.
    private let lock = NSLock()
    private var refusals: [ConnectionKey: Refusal] = [:]

    /// Whether `key`'s server refused extended CONNECT and the refusal still holds at `now` (nanoseconds of the
    /// loop's clock).
    func contains(_ key: ConnectionKey, now: UInt64) -> Bool {
        lock.withLock { refusals[key].map { now < $0.until } ?? false }
    }

    /// Remembers that `key`'s server refused extended CONNECT at `now`: for ``firstPeriod``, or for twice the
    /// last period when the server refused before.
    func insert(_ key: ConnectionKey, now: UInt64) {
        lock.withLock {
            // Both periods are at most a day, so doubling one cannot overflow.
            let period = refusals[key].map { min($0.period * 2, Self.longestPeriod) } ?? Self.firstPeriod
            if refusals[key] == nil, refusals.count >= Self.capacity,
                let soonest = refusals.min(by: { $0.value.until < $1.value.until })
            {
                refusals.removeValue(forKey: soonest.key)
            }
            let (until, overflow) = now.addingReportingOverflow(period)
            refusals[key] = Refusal(until: overflow ? .max : until, period: period)
        }
    }

    /// Forgets `key`: its server allowed extended CONNECT.
    func remove(_ key: ConnectionKey) {
        _ = lock.withLock { refusals.removeValue(forKey: key) }
    }

    /// How many origins are remembered, expired or not.
    var count: Int {
        lock.withLock { refusals.count }
    }
}
