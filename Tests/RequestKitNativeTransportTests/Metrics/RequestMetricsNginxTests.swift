import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

#if os(Linux) && canImport(CBrotli) && canImport(CZstd)
/// The native transport's metrics against nginx, which logs what it read and wrote of each request
/// (`$request_length`, `$bytes_sent`) and how many requests its connection has carried: the byte counts must be
/// exactly nginx's, the phases in order, and the second request on the kept-alive connection.
@Suite("Request metrics against nginx", .wallClock)
struct RequestMetricsNginxTests {
    /// One line of nginx's access log for a request.
    struct Logged: Equatable {
        var requestLength: Int
        var bytesSent: Int
        var connectionRequests: Int
    }

    @Test(
        "Byte counts equal what nginx logged, phases come in order, and the second request reuses the connection",
        .enabled(if: LocalNginx.isInstalled))
    func againstNginx() async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        let original = Data((0..<50_000).map { UInt8(truncatingIfNeeded: ($0 * 7) % 13 + 97) })
        try ContentCompressor.compress(original, with: .gzip).write(to: nginx.root.appendingPathComponent("data.gz"))
        let log = nginx.directory.appendingPathComponent("logs/access.log")
        try await nginx.start(
            directives: """
                log_format counts '$uri $request_length $bytes_sent $connection_requests';
                access_log \(log.path) counts;
                keepalive_timeout 60;
                """,
            locations: "location ~ \\.gz$ { types { } default_type text/plain; add_header Content-Encoding gzip; }")
        let base = nginx.base
        let port = nginx.port

        let transport = NativeTransport { $0.proxy = .none }
        var attempts: [RequestMetrics.Attempt] = []
        for _ in 0..<2 {
            let response = try await Request {
                Url("\(base)/data.gz")
                Header.Any(key: "X-Padding", value: String(repeating: "p", count: 100))
                Using(transport)
            }.send()
            #expect(response.status == .ok)
            #expect(response.body == original)
            attempts.append(try #require(response.metrics.attempts.last))
        }
        let logged = try await Self.loggedRequests(in: log, uri: "/data.gz", count: 2)
        #expect(logged.map(\.connectionRequests) == [1, 2])
        for (attempt, line) in zip(attempts, logged) {
            #expect(attempt.bytesSent == line.requestLength)
            #expect(attempt.bytesReceived == line.bytesSent)
            #expect(attempt.bodyBytesReceived == original.count)
            #expect(attempt.status == .ok)
            #expect(attempt.remoteAddress == "127.0.0.1:\(port)")
            #expect(attempt.networkProtocol == "http/1.1")
            #expect(attempt.domainLookup == nil && attempt.tlsHandshake == nil)
        }
        let first = attempts[0]
        let second = attempts[1]
        #expect(first.isReusedConnection == false)
        #expect(second.isReusedConnection == true)
        #expect(second.connect == nil)
        #expect(second.localAddress == first.localAddress)
        let connect = try #require(first.connect)
        for attempt in attempts {
            let sent = try #require(attempt.requestSent)
            let firstByte = try #require(attempt.firstResponseByte)
            let complete = try #require(attempt.responseComplete)
            let end = try #require(attempt.end)
            let wait = try #require(attempt.poolWait)
            var order = [attempt.start, wait.start, wait.end]
            if attempt == first { order += [connect.start, connect.end] }
            order += [sent.start, sent.end, firstByte, complete, end]
            #expect(order == order.sorted())
        }
    }

    /// The log lines of `uri`, once nginx has written `count` of them (within 10 seconds).
    static func loggedRequests(in log: URL, uri: String, count: Int) async throws -> [Logged] {
        for _ in 0..<100 {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let lines = text.split(separator: "\n").compactMap { line -> Logged? in
                let fields = line.split(separator: " ")
                guard fields.count == 4, fields[0] == uri, let length = Int(fields[1]), let sent = Int(fields[2]),
                    let requests = Int(fields[3])
                else { return nil }
                return Logged(requestLength: length, bytesSent: sent, connectionRequests: requests)
            }
            if lines.count >= count { return lines }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("nginx logged fewer than \(count) requests for \(uri)")
        return []
    }
}
#endif
