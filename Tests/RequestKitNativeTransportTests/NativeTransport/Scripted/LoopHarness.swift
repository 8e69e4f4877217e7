import Foundation

@testable import RequestKitConnect
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// A connection pool on a loop the test turns by hand, on a clock it moves by hand, connecting through a
/// ``ScriptedDialer``: the native transport's connections, connectors and pool, with no socket and no real time.
///
/// ```swift
/// let harness = LoopHarness()
/// let stream = ScriptedByteStream()
/// harness.dialer.plans = [.connects(stream)]
/// let request = harness.submit("/a")
/// stream.answer("GET /a", with: "HTTP/1.1 204 No Content\r\n\r\n")
/// harness.settle()
/// #expect(request.status == 204)
/// ```
final class LoopHarness: @unchecked Sendable {
    // Safe: one test uses it, from one thread at a time.
    let time = ManualLoopTime()
    let readiness = ManualReadiness()
    let loop: EventLoop
    let dialer: ScriptedDialer
    let pool: ConnectionPool
    let connectTimeout: Double

    init(
        maxConnectionsPerHost: Int = 4, idleTimeout: Double = 60, connectTimeout: Double = 10,
        http2: HTTP2Policy = .disabled, pollWindow: UInt64 = 0,
        race: HappyEyeballsStateMachine.Configuration = .init(), overrides: DNSOverrides = DNSOverrides(),
        dnsPolicy: DNSCache.Policy = DNSCache.Policy(), reportsWaiting: Bool = false
    ) {
        self.connectTimeout = connectTimeout
        loop = EventLoop(readiness: readiness, clock: .manual(time), reportsWaiting: reportsWaiting)
        dialer = ScriptedDialer(readiness: readiness)
        pool = ConnectionPool(
            group: EventLoopGroup(loops: [loop]), maxConnectionsPerHost: maxConnectionsPerHost,
            idleTimeout: idleTimeout, connectTimeout: connectTimeout, bufferSize: 64 * 1024, pollWindow: pollWindow,
            http2: http2, dialer: dialer,
            resolver: HostResolver(lookup: dialer, overrides: overrides, policy: dnsPolicy), race: race)
    }

    /// A request on its way, and what became of it.
    final class Submitted: @unchecked Sendable {
        // Safe: `lock` guards `ended`.
        private let lock = NSLock()
        private var ended: RequestJob.Outcome?
        let job: RequestJob
        private let connectTimeout: Double

        init(_ job: RequestJob, connectTimeout: Double) {
            self.job = job
            self.connectTimeout = connectTimeout
            job.begin { [self] outcome in lock.withLock { ended = outcome } }
        }

        /// How it ended, once it did.
        var outcome: RequestJob.Outcome? { lock.withLock { ended } }

        /// Whether it ended.
        var isFinished: Bool { outcome != nil }

        /// The status of its response, when it ended with one (a whole response, or a streamed head).
        var status: Int? {
            switch outcome {
            case .response(let exchanged)?: exchanged.head.status
            case .head(let head)?: head.status
            default: nil
            }
        }

        /// The body of its whole response, as text.
        var body: String? {
            guard case .response(let exchanged)? = outcome else { return nil }
            return String(decoding: exchanged.body, as: UTF8.self)
        }

        /// The error it ended with, as the transport reports it.
        var error: RequestError? {
            switch outcome {
            case .failed(let error, let wasReused)?:
                if case ExchangeFailure.closedBeforeResponse = error, wasReused {
                    return RequestError.transport(error, detail: "the kept-alive connection closed before a response")
                }
                return NativeTransport.requestError(for: error, idleTimeout: job.idleTimeout, key: job.key)
            case .connectFailed(let failure)?:
                return NativeTransport.connectError(failure, key: job.key, connectTimeout: connectTimeout)
            case .cancelled?:
                return RequestError.cancelled(underlyingError: CancellationError())
            case .poolWaitTimedOut?:
                return RequestError.timedOut("no connection came free")
            default:
                return nil
            }
        }
    }

    /// Submits a request for `path` to `host` (an IP literal needs no lookup); `inline` as an awaiting task submits
    /// it, which may write it itself on an idle connection while the loop waits (a harness made with
    /// `reportsWaiting`).
    @discardableResult
    func submit(
        _ path: String, method: String = "GET", host: String = "127.0.0.1", port: Int = 8080, body: Data = Data(),
        timeout: Double = 30, mode: RequestJob.Mode = .buffered(bodyLimit: 1 << 20), recordsMetrics: Bool = true,
        unixSocket: SocketAddress? = nil, inline: Bool = false
    ) -> Submitted {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let job = RequestJob(
            key: ConnectionKey(host: host, port: port, unixSocket: unixSocket), pool: pool, head: Array(head.utf8),
            body: body, method: method,
            idleTimeout: timeout, limits: ConnectionLimits(), mode: mode, recordsMetrics: recordsMetrics)
        let submitted = Submitted(job, connectTimeout: connectTimeout)
        pool.submit(job, inline: inline)
        return submitted
    }

    /// Turns the loop until a turn runs nothing (at most `limit` turns).
    func settle(limit: Int = 10_000) {
        for _ in 0..<limit where loop.turn() {}
    }

    /// Turns the loop until `condition` holds (at most `limit` turns): a flooded connection never lets the loop
    /// settle.
    func turn(until condition: () -> Bool, limit: Int = 10_000) {
        for _ in 0..<limit where !condition() { loop.turn() }
    }

    /// Moves the clock on by `seconds`, then settles.
    func advance(_ seconds: Double) {
        time.advance(by: UInt64(seconds * 1e9))
        settle()
    }
}
