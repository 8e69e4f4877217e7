#if canImport(CNghttp2)
import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitHTTP2

/// ``HTTP2Session`` against nghttpd (Debian's nghttp2-server), speaking h2c on a free port of 127.0.0.1, driven by
/// ``HTTP2SocketDriver``: an upload echoed back under small windows both ways, padded frames, and a server configured
/// to push, which the session's settings forbid.
@Suite("HTTP/2 session against nghttpd", .enabled(if: FileManager.default.isExecutableFile(atPath: Nghttpd.executable)))
struct HTTP2SessionNghttpdTests {
    @Test("A 300 KB upload is echoed back whole, both directions held to 16 KiB windows")
    func echoedUpload() async throws {
        let server = try await Nghttpd.start(arguments: ["--echo-upload", "--window-bits=14"])
        defer { server.stop() }
        let body = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })
        let port = server.port
        let run = try await offThePool {
            try HTTP2SocketDriver.exchange(
                port: port, requests: [.init(method: "POST", path: "/echo", body: body)], streamWindow: 16_384)
        }
        #expect(run.failures == [])
        #expect(run.answers["/echo"]?.status == 200)
        #expect(run.answers["/echo"]?.body == body)
    }

    @Test("Padded frames and a server set to push: every file arrives, nothing is pushed")
    func paddingAndPush() async throws {
        let server = try await Nghttpd.start { root in
            try Data("<link rel=stylesheet href=/style.css>".utf8).write(to: root.appendingPathComponent("index.html"))
            try Data("body { color: red }".utf8).write(to: root.appendingPathComponent("style.css"))
            return ["--padding=255", "--push=/index.html=/style.css"]
        }
        defer { server.stop() }
        let port = server.port
        let run = try await offThePool {
            try HTTP2SocketDriver.exchange(port: port, paths: ["/index.html", "/style.css"], streamWindow: 65_535)
        }
        #expect(run.failures == [])
        #expect(run.answers["/index.html"]?.body == Data("<link rel=stylesheet href=/style.css>".utf8))
        #expect(run.answers["/style.css"]?.body == Data("body { color: red }".utf8))
        #expect(run.connections == 1)
    }
}

/// nghttpd run by a test in a directory of its own, h2c on a free port of 127.0.0.1; ``stop()`` ends it.
final class Nghttpd: Sendable {
    static let executable = "/usr/sbin/nghttpd"

    let port: Int
    private let process: ChildProcess
    private let directory: URL

    private init(port: Int, process: ChildProcess, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// Starts nghttpd with `arguments`, serving a directory `prepare` fills (its result adds arguments), and returns
    /// once it accepts connections.
    static func start(
        arguments: [String] = [], prepare: (URL) throws -> [String] = { _ in [] }
    ) async throws -> Nghttpd {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nghttpd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let extra = try prepare(directory)
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        let process = try ChildProcess(
            executable,
            ["--no-tls", "--address=127.0.0.1", "--htdocs=\(directory.path)"] + arguments + extra + [String(port)])
        let server = Nghttpd(port: port, process: process, directory: directory)
        for _ in 0..<100 {
            if (try? await offThePool { _ = try BlockingHTTPConnection(port: port, timeout: .seconds(1)) }) != nil {
                return server
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw HTTP2ConnectionFailure.closed
    }

    /// Ends nghttpd and removes its directory.
    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
#endif
