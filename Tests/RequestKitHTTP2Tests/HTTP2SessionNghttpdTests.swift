#if canImport(CNghttp2)
import Foundation
import RequestKitTestSupport
import Testing

import RequestKitHTTP2

/// ``HTTP2Session`` against nghttpd (Debian's nghttp2-server), speaking h2c on a free port of 127.0.0.1, driven by
/// ``HTTP2SocketDriver``: an upload echoed back under small windows both ways, padded frames, and a server configured
/// to push, which the session's settings forbid.
@Suite(
    "HTTP/2 session against nghttpd", .enabled(if: FileManager.default.isExecutableFile(atPath: Nghttpd.executable)),
    .wallClock)
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
#endif
