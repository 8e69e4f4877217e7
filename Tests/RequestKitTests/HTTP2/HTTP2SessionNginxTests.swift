#if canImport(CNghttp2)
import Foundation
import Testing
@testable import RequestKitHTTP2

/// ``HTTP2Session`` against a real HTTP/2 server: nginx from Debian speaking h2c (prior knowledge) on a free port of
/// 127.0.0.1. A small driver sends the requests over a blocking socket as the server's stream limit allows, and
/// sends a request again on a new connection when the session says the server never processed it.
@Suite("HTTP/2 session against nginx", .enabled(if: LocalNginx.isInstalled))
struct HTTP2SessionNginxTests {
    /// What a request got.
    struct Answer: Sendable, Equatable {
        var status = 0
        var headers = HTTPHeaders()
        var body = Data()
    }

    /// What a run of ``exchange(port:paths:streamWindow:)`` saw.
    struct Run: Sendable {
        var answers: [String: Answer] = [:]
        var connections = 0
        var retries = 0
        var maxConcurrentStreams = 0
        var mostOpenAtOnce = 0
        var failures: [String] = []
    }

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
        let run = try await offThePool { try Self.exchange(port: port, paths: paths, streamWindow: 16_384) }
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
        let run = try await offThePool { try Self.exchange(port: port, paths: paths, streamWindow: 65_535) }
        #expect(run.failures == [])
        #expect(run.connections >= 3)
        #expect(run.retries > 0)
        for (index, path) in paths.enumerated() {
            #expect(
                run.answers[path]
                    == Answer(status: 200, headers: run.answers[path]?.headers ?? [:], body: Data("n\(index)".utf8)))
        }
    }

    /// Gets `paths` from nginx on `port` over HTTP/2, as many at once as the server allows, each request that the
    /// server did not process sent again on a new connection. Blocks: run it off the cooperative pool.
    private static func exchange(port: Int, paths: [String], streamWindow: Int) throws -> Run {
        var run = Run()
        var pending = paths
        while !pending.isEmpty, run.connections < 10 {
            run.connections += 1
            let socket = try BlockingHTTPConnection(port: port, timeout: .seconds(10))
            defer { socket.close() }
            var settings = HTTP2Settings()
            settings.streamWindow = streamWindow
            settings.assumedMaxConcurrentStreams = 1
            let session = try HTTP2Session(settings: settings)
            var streams: [Int32: String] = [:]
            var answers: [Int32: Answer] = [:]
            while !(pending.isEmpty && streams.isEmpty) {
                while session.canOpenStream, let path = pending.first, session.hasServerSettings || streams.isEmpty {
                    let head = HTTP2RequestHead(
                        method: "GET", scheme: "http", authority: "127.0.0.1:\(port)", path: path, headers: [:])
                    let stream = try session.request(head, body: nil)
                    streams[stream] = path
                    pending.removeFirst()
                }
                run.mostOpenAtOnce = max(run.mostOpenAtOnce, streams.count)
                try socket.send(Data(session.outgoing()))
                guard let bytes = socket.readAvailable() else {
                    run.failures.append("the connection ended with \(streams.count) streams open")
                    return run
                }
                for output in bytes.withUnsafeBytes({ session.receive($0) }) {
                    switch output {
                    case .head(let stream, let status, let headers):
                        answers[stream, default: Answer()].status = status
                        answers[stream, default: Answer()].headers = headers
                    case .data(let stream, let piece):
                        answers[stream, default: Answer()].body.append(piece)
                        session.consumed(piece.count, on: stream)
                    case .end(let stream):
                        if let path = streams.removeValue(forKey: stream) { run.answers[path] = answers[stream] }
                    case .retry(let stream):
                        if let path = streams.removeValue(forKey: stream) {
                            run.retries += 1
                            pending.append(path)
                        }
                    case .failed(let stream, let failure):
                        streams[stream] = nil
                        run.failures.append("stream \(stream): \(failure)")
                    case .closed(let failure):
                        if let failure { run.failures.append("connection: \(failure)") }
                    case .informational, .trailers, .goingAway, .pingAnswered:
                        break
                    }
                }
                run.maxConcurrentStreams = session.hasServerSettings ? session.maxConcurrentStreams : 0
                if !session.isAvailable, streams.isEmpty { break }
            }
            try socket.send(Data(session.outgoing()))
        }
        return run
    }
}
#endif
