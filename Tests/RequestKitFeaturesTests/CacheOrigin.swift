import Foundation
import RequestKitTestSupport
import RequestKitTesting

@testable import RequestKitFeatures
@testable import RequestKitModel

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A loopback origin for the cache's wire tests: each route answers with the number of the request it got on that
/// path (`1`, `2`, …) as its body, and the headers the test gives for that number.
final class CacheOrigin: @unchecked Sendable {
    // Safe: every access to `counts` holds `lock`.
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    let server: TestServer
    /// The time the origin's `Date` fields tell: the cache's clock, so that a test clock moves both.
    let now: @Sendable () -> Date

    /// An origin on a server of `wire`'s kind (plain HTTP/1.1 when nil).
    init(now: @escaping @Sendable () -> Date = { Date() }, wire: WireTransport? = nil) throws {
        server = try wire?.server() ?? TestServer()
        self.now = now
    }

    deinit { server.stop() }

    /// Answers `path` with `respond(n, request)` for its n-th request; the body is `n` unless the response has one.
    func route(_ path: String, _ respond: @escaping @Sendable (Int, TestRequest) -> TestResponse) {
        server.route(path) { [unowned self] request in
            let count = lock.withLock {
                counts[path, default: 0] += 1
                return counts[path, default: 0]
            }
            var response = respond(count, request)
            if response.header("Date") == nil { response.headers.append(("Date", HTTPDateFormat.string(from: now()))) }
            if case .data(let data) = response.body, data.isEmpty, response.status != 304 {
                response.body = .data(Data("\(count)".utf8))
            }
            return response
        }
    }

    /// Answers `path` with `status` and `headers` every time.
    func route(_ path: String, status: Int = 200, _ headers: [(name: String, value: String)]) {
        route(path) { _, _ in TestResponse(status: status, headers: headers) }
    }

    /// How many requests `path` got.
    func count(_ path: String) -> Int { lock.withLock { counts[path, default: 0] } }

    func url(_ path: String) -> URL { server.url(path) }
}

/// A monitor that records each cache event as `status path`.
final class CacheEvents: EventMonitor, @unchecked Sendable {
    // Safe: every access to `events` holds `lock`.
    private let lock = NSLock()
    private var events: [String] = []

    var all: [String] { lock.withLock { events } }

    func cacheConsulted(_ request: URLRequest, status: CacheStatus, response: Response) {
        lock.withLock { events.append("\(status) \(request.url?.path ?? "")") }
    }
}
