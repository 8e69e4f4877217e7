import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import RequestKitURLSession
import Testing

@testable import RequestKitNativeTransport
@testable import RequestKitTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `RequestMetrics` as the native transport and the pipeline fill them: every phase in order, exact byte counts,
/// the connection's facts, one attempt per retry and redirect hop, and the same on failures and streams.
@Suite("Request metrics", .wallClock)
struct RequestMetricsTests {
    /// The bytes a request went out as: its request line, the fields in the order received, and the body.
    private static func wireLength(of request: TestRequest) -> Int {
        var text = "\(request.method) \(request.target) HTTP/1.1\r\n"
        for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8).count + request.body.count
    }

    /// Every instant of `attempt` that is set, in the order the phases happen.
    private static func instantsInOrder(_ attempt: RequestMetrics.Attempt) -> [ContinuousClock.Instant] {
        let points: [ContinuousClock.Instant?] = [
            attempt.start, attempt.poolWait?.start, attempt.poolWait?.end, attempt.domainLookup?.start,
            attempt.domainLookup?.end, attempt.connect?.start, attempt.connect?.end, attempt.tlsHandshake?.start,
            attempt.tlsHandshake?.end, attempt.requestSent?.start, attempt.requestSent?.end, attempt.firstResponseByte,
            attempt.responseComplete, attempt.end,
        ]
        return points.compactMap { $0 }
    }

    @Test("A request on a new connection: every phase it went through, in order, with exact byte counts")
    func newConnection() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\n"
        server.route("/exact") { _ in
            TestResponse(body: .raw { try $0.writeRaw(Data((head + "hello").utf8)) })
        }
        let transport = NativeTransport()
        let response = try await Request {
            Url(server.url("/exact"))
            Method(.post)
            Body("ping")
            Using(transport)
        }.send()
        #expect(try response.string() == "hello")
        let attempt = try #require(response.metrics.attempts.first)
        #expect(response.metrics.attempts.count == 1)
        #expect(attempt.url == server.url("/exact"))
        #expect(attempt.status == .ok)
        #expect(attempt.isReusedConnection == false)
        #expect(attempt.networkProtocol == "http/1.1")
        #expect(attempt.remoteAddress == "127.0.0.1:\(server.port)")
        #expect(attempt.localAddress?.hasPrefix("127.0.0.1:") == true)
        #expect(attempt.tls == nil)
        // A numeric host needs no lookup; a plain connection no handshake.
        #expect(attempt.domainLookup == nil)
        #expect(attempt.tlsHandshake == nil)
        #expect(attempt.poolWait != nil && attempt.connect != nil && attempt.requestSent != nil)
        #expect(attempt.firstResponseByte != nil && attempt.responseComplete != nil)
        let instants = Self.instantsInOrder(attempt)
        #expect(instants.count == 10)
        #expect(instants == instants.sorted())
        let sent = try #require(server.requests.first)
        #expect(attempt.bytesSent == Self.wireLength(of: sent))
        #expect(attempt.bytesReceived == Data((head + "hello").utf8).count)
        #expect(attempt.bodyBytesReceived == 5)
        #expect(response.metrics.duration == attempt.duration)
    }

    @Test("A request on a kept-alive connection has no connect phase and says it was reused")
    func reusedConnection() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        let first = try await Request {
            Url(server.url("/get")); Using(transport)
        }.send()
        let second = try await Request {
            Url(server.url("/get")); Using(transport)
        }.send()
        #expect(server.stats.totalConnections == 1)
        let attempt = try #require(second.metrics.attempts.first)
        #expect(first.metrics.attempts.first?.isReusedConnection == false)
        #expect(attempt.isReusedConnection == true)
        #expect(attempt.connect == nil)
        #expect(attempt.remoteAddress == "127.0.0.1:\(server.port)")
        #expect(attempt.localAddress == first.metrics.attempts.first?.localAddress)
        let instants = Self.instantsInOrder(attempt)
        #expect(instants.count == 8)
        #expect(instants == instants.sorted())
    }

    @Test("A transport told to record no metrics (to measure their cost) answers alike with no attempts")
    func recordingOff() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let bare = NativeTransport { $0.recordsMetrics = false }
        let response = try await Request {
            Url(server.url("/bytes/5?seed=1")); Using(bare)
        }.send()
        #expect(response.status == .ok && response.body.count == 5)
        #expect(response.metrics.attempts.isEmpty)
        let streamed = try await Request {
            Url(server.url("/bytes/5?seed=1")); Using(bare)
        }.stream()
        var body = Data()
        for try await chunk in streamed { body.append(chunk) }
        #expect(body == response.body)
        #expect(streamed.metrics.attempts.isEmpty)
        let down = try RefusingPort()
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(down.url("/anything")); Using(bare)
            }.send()
        }
        #expect(error.kind == .transport)
        #expect(error.metrics?.attempts.isEmpty ?? true)
    }

    @Test("A body sent with Content-Encoding counts its bytes on the wire apart from its decoded bytes")
    func decodedBytes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/gzip")); Using(NativeTransport())
        }.send()
        let attempt = try #require(response.metrics.attempts.first)
        #expect(attempt.bodyBytesReceived == response.body.count)
        let wire = try #require(attempt.bytesReceived)
        let declared = try #require(response.headers["Content-Length"].flatMap { Int($0) })
        // The head and the compressed body came over the wire: more than the body as sent, whatever it decoded to.
        #expect(wire > declared)
        #expect(response.headers["Content-Encoding"] == "gzip")
    }

    @Test("Each redirect hop is an attempt of its own, in order")
    func redirects() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/redirect/2")); Using(NativeTransport())
        }.send()
        let attempts = response.metrics.attempts
        #expect(attempts.map(\.status) == [HTTPStatus(code: 302), HTTPStatus(code: 302), .ok])
        #expect(attempts.map(\.url?.path) == ["/redirect/2", "/redirect/1", "/get"])
        #expect(attempts.map(\.isReusedConnection) == [false, true, true])
        let starts = attempts.map(\.start)
        #expect(starts == starts.sorted())
    }

    @Test("Each retry is an attempt of its own; a monitor gets them all when the request ends")
    func retries() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let calls = Counter()
        server.route("/flaky") { _ in
            calls.next() == 1 ? TestResponse(status: 503) : .text("ok")
        }
        let finished = Recorded<[RequestMetrics]>([])
        let response = try await Request {
            Url(server.url("/flaky"))
            Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0))
            Monitor(MetricsRecorder(finished: finished))
            Using(NativeTransport())
        }.send()
        #expect(response.metrics.attempts.map(\.status) == [.serviceUnavailable, .ok])
        #expect(finished.withLock { $0 } == [response.metrics])
    }

    @Test("A failure keeps the metrics of the attempt that failed, and of every retry before it")
    func failure() async throws {
        let down = try RefusingPort()
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(down.url("/anything"))
                Retry(RetryPolicy(maxAttempts: 2, baseDelay: 0))
                Using(NativeTransport())
            }.send()
        }
        let attempts = try #require(error.metrics?.attempts)
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.status == nil && $0.end != nil && $0.firstResponseByte == nil })
        #expect(attempts.allSatisfy { $0.url == down.url("/anything") })
    }

    @Test("A streamed response's metrics end when its body does")
    func streamed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The body's second half waits (on the server's loop) until the test has looked at the metrics.
        let release = Gate()
        server.route("/halves") { _ in
            TestResponse.stepped(headers: [("Content-Length", "3000")]) {
                let deadline = ContinuousClock.now + .seconds(300)
                var halvesWritten = 0
                return AnyIterator {
                    switch halvesWritten {
                    case 0:
                        halvesWritten = 1
                        return .write(Data(repeating: 0x61, count: 1500))
                    case 1 where !release.isOpen && ContinuousClock.now < deadline:
                        return .pause(.milliseconds(5))
                    case 1:
                        halvesWritten = 2
                        return .write(Data(repeating: 0x62, count: 1500))
                    default:
                        return nil
                    }
                }
            }
        }
        // A timeout longer than the server's cap: on a starved machine the test may look at the metrics late, and
        // the attempt must still be waiting for its second half when it does.
        let streaming = try await Request {
            Url(server.url("/halves")); Timeout(600); Using(NativeTransport())
        }.stream()
        #expect(streaming.metrics.attempts.first?.end == nil)
        release.open()
        #expect(streaming.metrics.attempts.first?.firstResponseByte != nil)
        var count = 0
        for try await chunk in streaming { count += chunk.count }
        let attempt = try #require(streaming.metrics.attempts.first)
        #expect(count == 3000)
        #expect(attempt.bodyBytesReceived == 3000)
        #expect(attempt.end != nil && attempt.responseComplete != nil)
        #expect(attempt.networkProtocol == "http/1.1")
        let instants = Self.instantsInOrder(attempt)
        #expect(instants == instants.sorted())
    }

    @Test("A name that needs a lookup has a DNS phase before the connection")
    func domainLookup() async throws {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        // The machine's own name, when the resolver knows it (from /etc/hosts on Linux machines and containers).
        guard !host.isEmpty, (try? NetworkSocket.resolve(host: host, port: 80)) != nil else { return }
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Request {
            Url("http://\(host):\(server.port)/get")
            Using(NativeTransport())
        }.send()
        let attempt = try #require(response.metrics.attempts.first)
        let lookup = try #require(attempt.domainLookup)
        let connect = try #require(attempt.connect)
        #expect(lookup.end <= connect.start)
        #expect(Self.instantsInOrder(attempt) == Self.instantsInOrder(attempt).sorted())
    }

    @Test("The timeline shows each phase the attempt went through, in milliseconds with one decimal")
    func timeline() {
        let start = ContinuousClock.now
        func at(_ microseconds: Int) -> ContinuousClock.Instant { start.advanced(by: .microseconds(microseconds)) }
        var attempt = RequestMetrics.Attempt(url: nil, start: start)
        attempt.poolWait = RequestMetrics.Interval(start: at(0), end: at(40))
        attempt.connect = RequestMetrics.Interval(start: at(40), end: at(140))
        attempt.tlsHandshake = RequestMetrics.Interval(start: at(140), end: at(2_040))
        attempt.requestSent = RequestMetrics.Interval(start: at(2_040), end: at(2_050))
        attempt.firstResponseByte = at(2_450)
        attempt.responseComplete = at(2_560)
        attempt.end = at(2_560)
        #expect(
            attempt.timeline == "pool 0.0 ms · connect 0.1 ms · tls 1.9 ms · send 0.0 ms · wait 0.4 ms · body 0.1 ms")
        #expect(attempt.waitingForResponse == .microseconds(400))
        #expect(attempt.receivingResponse == .microseconds(110))
        #expect(attempt.duration == .microseconds(2_560))
        var bare = RequestMetrics.Attempt(url: nil, start: start)
        bare.end = at(12_340)
        #expect(bare.timeline == "total 12.3 ms")
    }

    @Test("Moving an attempt's start leaves every other instant where it was; attempts equal by their instants")
    func movingTheStart() {
        let start = ContinuousClock.now
        func at(_ microseconds: Int) -> ContinuousClock.Instant { start.advanced(by: .microseconds(microseconds)) }
        var attempt = RequestMetrics.Attempt(url: nil, start: at(100))
        attempt.connect = RequestMetrics.Interval(start: at(150), end: at(250))
        attempt.firstResponseByte = at(400)
        attempt.end = at(500)
        let before = attempt
        attempt.start = at(0)
        #expect(attempt.start == at(0))
        #expect(attempt.connect == RequestMetrics.Interval(start: at(150), end: at(250)))
        #expect(attempt.firstResponseByte == at(400))
        #expect(attempt.end == at(500))
        #expect(attempt.duration == .microseconds(500))
        #expect(attempt != before)
        attempt.start = at(100)
        #expect(attempt == before)
        #expect(attempt.hashValue == before.hashValue)
        attempt.end = nil
        #expect(attempt.end == nil && attempt.duration == nil)
    }

    @Test("ConsoleLogger prints each attempt's timeline when asked, and not otherwise")
    func consoleTimeline() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let lines = Recorded<[String]>([])
        let quiet = Recorded<[String]>([])
        _ = try await Request {
            Url(server.url("/get"))
            Monitor(ConsoleLogger(logsTimeline: true) { line in lines.withLock { $0.append(line) } })
            Monitor(ConsoleLogger { line in quiet.withLock { $0.append(line) } })
            Using(NativeTransport())
        }.send()
        let logged = lines.withLock { $0 }
        #expect(logged.count == 3)
        let timeline = try #require(logged.last)
        #expect(timeline.hasPrefix("⏱ pool "))
        #expect(timeline.contains(" · connect ") && timeline.contains(" · wait ") && timeline.contains(" · body "))
        #expect(quiet.withLock { $0 }.count == 2)
    }

    @Test("URLSessionTransport reports what FoundationNetworking gives and leaves the phases nil")
    func urlSession() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/bytes/100")); Using(URLSessionTransport.shared)
        }.send()
        let attempt = try #require(response.metrics.attempts.first)
        #expect(response.metrics.attempts.count == 1)
        #expect(attempt.status == .ok)
        #expect(attempt.bodyBytesReceived == 100)
        #expect(attempt.end != nil && attempt.firstResponseByte != nil)
        #expect(attempt.connect == nil && attempt.poolWait == nil && attempt.bytesSent == nil)
        let instants = Self.instantsInOrder(attempt)
        #expect(instants == instants.sorted())
    }
}

/// Keeps the metrics every finished request reports.
private struct MetricsRecorder: EventMonitor {
    let finished: Recorded<[RequestMetrics]>

    func requestFinished(_ request: URLRequest, metrics: RequestMetrics) {
        finished.withLock { $0.append(metrics) }
    }
}

/// A value several threads record into.
private final class Recorded<Value: Sendable>: @unchecked Sendable {
    // Safe: every access to `value` holds `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock { body(&value) }
    }
}

#if os(Linux)
/// Metrics over TLS: the handshake's phase and what it negotiated.
@Suite("Request metrics over TLS", .wallClock)
struct TLSRequestMetricsTests {
    @Test("A new TLS connection has a handshake phase after connecting, and names its version and cipher suite")
    func handshake() async throws {
        let server = try TestServer { $0.tls = .init(certificate: .valid) }
        defer { server.stop() }
        let transport = NativeTransport {
            $0.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        }
        let first = try await Request {
            Url(server.url("/get")); Using(transport)
        }.send()
        let second = try await Request {
            Url(server.url("/get")); Using(transport)
        }.send()
        let attempt = try #require(first.metrics.attempts.first)
        let handshake = try #require(attempt.tlsHandshake)
        let connect = try #require(attempt.connect)
        let sent = try #require(attempt.requestSent)
        #expect(connect.end <= handshake.start && handshake.end <= sent.start)
        let tls = try #require(attempt.tls)
        #expect(tls.version == "TLSv1.3")
        #expect(tls.cipherSuite.hasPrefix("TLS_"))
        #expect(tls.isSessionResumed == false)
        // A kept-alive connection has no handshake of its own, and still names what it negotiated.
        let reused = try #require(second.metrics.attempts.first)
        #expect(reused.tlsHandshake == nil && reused.isReusedConnection == true)
        #expect(reused.tls == tls)
    }
}
#endif
