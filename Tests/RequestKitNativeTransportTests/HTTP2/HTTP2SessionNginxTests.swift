#if canImport(CNghttp2)
import Foundation
import RequestKitTestSupport
import Testing

import RequestKitHTTP2

/// ``HTTP2Session`` against a real HTTP/2 server: nginx from Debian speaking h2c (prior knowledge) on a free port of
/// 127.0.0.1, driven by ``HTTP2SocketDriver``.
@Suite("HTTP/2 session against nginx", .enabled(if: LocalNginx.isInstalled), .wallClock)
struct HTTP2SessionNginxTests {
    typealias Answer = HTTP2SocketDriver.Answer

    @Test("Many streams on one connection, a large body under a small window, the server's stream limit obeyed")
    func manyStreams() async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        var expected: [String: Data] = [:]
        for index in 0..<20 {
            let body = Data("file \(index)\n".utf8)
            try body.write(to: nginx.root.appendingPathComponent("\(index).txt"))
            expected["/\(index).txt"] = body
        }
        let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 31) })
        try large.write(to: nginx.root.appendingPathComponent("large.bin"))
        expected["/large.bin"] = large
        try await nginx.start(directives: "http2_max_concurrent_streams 4; access_log off;", listen: "http2")
        let port = nginx.port
        let paths = expected.keys.sorted()
        let run = try await offThePool {
            try HTTP2SocketDriver.exchange(port: port, paths: paths, streamWindow: 16_384)
        }
        #expect(run.failures == [])
        #expect(run.connections == 1)
        #expect(run.maxConcurrentStreams == 4)
        #expect(run.mostOpenAtOnce == 4)
        for path in paths {
            #expect(run.answers[path]?.status == 200, "\(path)")
            #expect(run.answers[path]?.body == expected[path], "\(path)")
            #expect(run.answers[path]?.headers["content-length"] == expected[path].map { String($0.count) })
        }
    }

    @Test("After its request limit nginx sends GOAWAY: the requests it did not process go again on a new connection")
    func goAwayRetries() async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        for index in 0..<12 { try Data("n\(index)".utf8).write(to: nginx.root.appendingPathComponent("\(index)")) }
        try await nginx.start(
            directives: "http2_max_concurrent_streams 8; keepalive_requests 5; access_log off;", listen: "http2")
        let port = nginx.port
        let paths = (0..<12).map { "/\($0)" }
        let run = try await offThePool {
            try HTTP2SocketDriver.exchange(port: port, paths: paths, streamWindow: 65_535)
        }
        #expect(run.failures == [])
        #expect(run.connections >= 3)
        #expect(run.retries > 0)
        for (index, path) in paths.enumerated() {
            #expect(
                run.answers[path]
                    == Answer(status: 200, headers: run.answers[path]?.headers ?? [:], body: Data("n\(index)".utf8)))
        }
    }
}
#endif
