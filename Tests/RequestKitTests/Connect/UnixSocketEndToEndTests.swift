#if os(Linux)
import Foundation
import Testing

@testable import RequestKit
@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests through Unix domain sockets to real servers: a Python server answering a Docker-style API path, and nginx
/// listening on a socket (HTTP/1.1, and HTTP/2 with prior knowledge), routed by ``UnixSocketRoutes``.
@Suite("Unix sockets end to end")
struct UnixSocketEndToEndTests {
    /// A Python HTTP/1.1 server on a Unix socket that answers every GET with the path and `Host` it got, as JSON.
    final class PythonUnixServer {
        let directory: URL
        let socketPath: String
        private let process: ChildProcess

        static let script = """
            import http.server, json, socketserver, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def do_GET(self):
                    body = json.dumps({"path": self.path, "host": self.headers.get("Host")}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *arguments):
                    pass
            class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
                daemon_threads = True
            Server(sys.argv[1], Handler).serve_forever()
            """

        init() async throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("unix-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            socketPath = directory.appendingPathComponent("api.sock").path
            process = try ChildProcess("/usr/bin/python3", ["-c", Self.script, socketPath])
            for _ in 0..<500 where !FileManager.default.fileExists(atPath: socketPath) && process.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
        }

        func stop() {
            process.terminate()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func transport(
        routing base: String, to path: String, http2: HTTP2Policy = .disabled
    ) throws
        -> NativeTransport
    {
        let url = try #require(URL(string: base))
        var configuration = NativeTransport.Configuration()
        configuration.proxy = .none
        configuration.http2 = http2
        try configuration.unixSocketRoutes.route(url, through: path)
        return NativeTransport(configuration: configuration)
    }

    @Test("A Docker-style API path over a Unix socket: the server sees the path and the route's host")
    func dockerStylePath() async throws {
        let server = try await PythonUnixServer()
        defer { server.stop() }
        let transport = try Self.transport(routing: "http://docker", to: server.socketPath)
        let response = try await Request {
            Url("http://docker/v1.43/containers/json?all=1")
            Using(transport)
        }.send()
        #expect(response.statusCode == 200)
        let answer = try JSONDecoder().decode([String: String].self, from: response.body)
        #expect(answer == ["path": "/v1.43/containers/json?all=1", "host": "docker"])
        #expect(response.metrics.attempts.first?.remoteAddress == "unix:\(server.socketPath)")
        // The kept-alive connection carries the next request.
        _ = try await Request {
            Url("http://docker/v1.43/info")
            Using(transport)
        }.send()
        #expect(transport.idleConnectionCount == 1)
    }

    @Test("A socket nobody listens on fails naming its path")
    func missingSocket() async throws {
        let transport = try Self.transport(routing: "http://app", to: "/tmp/requestkit-missing-\(UUID()).sock")
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://app/health")
                Using(transport)
            }.send()
        }
        #expect(error.description.contains("requestkit-missing-"))
        #expect(error.description.contains("the Unix socket"))
    }

    @Test(
        "nginx on a Unix socket answers over HTTP/1.1 and over HTTP/2 with prior knowledge",
        .enabled(if: LocalNginx.isInstalled))
    func nginxOnASocket() async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        let plain = nginx.directory.appendingPathComponent("plain.sock").path
        let h2 = nginx.directory.appendingPathComponent("h2.sock").path
        let body = #"return 200 "over a socket\n";"#
        try await nginx.start(
            directives: """
                server { listen unix:\(plain); location / { \(body) } }
                server { listen unix:\(h2) http2; location / { \(body) } }
                """)
        let http1 = try Self.transport(routing: "http://local", to: plain)
        let one = try await Request {
            Url("http://local/")
            Using(http1)
        }.send()
        #expect(one.statusCode == 200)
        #expect(String(decoding: one.body, as: UTF8.self) == "over a socket\n")
        #expect(one.metrics.attempts.first?.networkProtocol == "http/1.1")
        let http2 = try Self.transport(routing: "http://local", to: h2, http2: .priorKnowledge(for: ["local"]))
        let two = try await Request {
            Url("http://local/")
            Using(http2)
        }.send()
        #expect(two.statusCode == 200)
        #expect(String(decoding: two.body, as: UTF8.self) == "over a socket\n")
        #expect(two.metrics.attempts.first?.networkProtocol == "h2")
    }
}
#endif
