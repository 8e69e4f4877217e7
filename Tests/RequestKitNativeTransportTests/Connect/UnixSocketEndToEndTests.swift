#if os(Linux)
import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import RequestKitURLSession
import Testing

import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests through Unix domain sockets to real servers: a Python server answering a Docker-style API path, and nginx
/// listening on a socket (HTTP/1.1, and HTTP/2 with prior knowledge), routed by ``UnixSocketRoutes``.
@Suite("Unix sockets end to end", .wallClock)
struct UnixSocketEndToEndTests {
    /// A Python HTTP/1.1 server on a Unix socket that answers every GET with the path and `Host` it got, as JSON.
    final class PythonUnixServer {
        let directory: URL
        let socketPath: String
        private let process: ChildProcess

        static let script = """
            import http.server, json, socketserver, sys, urllib.parse
            class Handler(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"
                def do_GET(self):
                    if self.path.startswith("/redirect?to="):
                        self.send_response(302)
                        self.send_header("Location", urllib.parse.unquote(self.path[len("/redirect?to="):]))
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return
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

    /// `path` percent-encoded as the host of an `http+unix` URL.
    static func encoded(_ path: String) throws -> String {
        try #require(
            path.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))))
    }

    @Test("An http+unix URL: its host is the socket's path, its path and query the request's, sent to localhost")
    func httpUnixURL() async throws {
        let server = try await PythonUnixServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.proxy = .none }
        let url = "http+unix://\(try Self.encoded(server.socketPath))/v1.43/containers/json?all=1"
        let response = try await Request {
            Url(url)
            Using(transport)
        }.send()
        #expect(response.statusCode == 200)
        let answer = try JSONDecoder().decode([String: String].self, from: response.body)
        #expect(answer == ["path": "/v1.43/containers/json?all=1", "host": "localhost"])
        #expect(response.url?.absoluteString == url)
        #expect(response.metrics.attempts.first?.remoteAddress == "unix:\(server.socketPath)")
        // A client whose base URL is the socket's: the same pooled connection carries its request.
        let client = try Client(baseURL: "http+unix://\(try Self.encoded(server.socketPath))/v1.43/") {
            Using(transport)
        }
        let info = try await client.send(Request { Path("info") })
        let infoAnswer = try JSONDecoder().decode([String: String].self, from: info.body)
        #expect(infoAnswer == ["path": "/v1.43/info", "host": "localhost"])
        #expect(transport.idleConnectionCount == 1)
    }

    @Test("A redirect on an http+unix URL is followed on the same socket; one to another socket is refused")
    func redirects() async throws {
        let server = try await PythonUnixServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.proxy = .none }
        let base = "http+unix://\(try Self.encoded(server.socketPath))"
        let followed = try await Request {
            Url("\(base)/redirect?to=%2Fv1.43%2Finfo")
            Using(transport)
        }.send()
        let answer = try JSONDecoder().decode([String: String].self, from: followed.body)
        #expect(answer == ["path": "/v1.43/info", "host": "localhost"])
        #expect(followed.url?.absoluteString == "\(base)/v1.43/info")
        let other = "http+unix://%2Ftmp%2Fother.sock/x"
        let escaped = try #require(other.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("\(base)/redirect?to=\(escaped)")
                Using(transport)
            }.send()
        }
        #expect(error.kind == .redirectRefused)
        #expect(error.response?.statusCode == 302)
        #expect(error.description.contains(other))
    }

    @Test("URLSessionTransport refuses an http+unix URL, naming the transport that sends it")
    func urlSessionRefuses() async throws {
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info")
                Using(URLSessionTransport.shared)
            }.send()
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.unsupportedScheme])
        #expect(
            error.problems.first?.message
                == "URLSession cannot reach the Unix socket of \"http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info\": "
                + "send it with NativeTransport")
    }

    @Test("An http+unix URL naming no usable socket path is a typed error, nothing sent")
    func badHTTPUnixURL() async throws {
        let transport = NativeTransport { $0.proxy = .none }
        let tooLong = String(repeating: "a", count: 200)
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http+unix://%2Ftmp%2F\(tooLong).sock/info")
                Using(transport)
            }.send()
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidSocketPath])
    }

    @Test(
        "TLS over a Unix socket: https+unix and an https route, verified as localhost, ALPN choosing HTTP/2",
        .enabled(if: LocalNginx.isInstalled))
    func tlsOverASocket() async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        let certificate = nginx.directory.appendingPathComponent("valid.pem")
        let key = nginx.directory.appendingPathComponent("valid-key.pem")
        try Data(TestCertificate.valid.certificatePEM.utf8).write(to: certificate)
        try Data(TestCertificate.valid.privateKeyPEM.utf8).write(to: key)
        let h1 = nginx.directory.appendingPathComponent("tls.sock").path
        let h2 = nginx.directory.appendingPathComponent("tls-h2.sock").path
        let body = #"return 200 "secure over a socket\n";"#
        try await nginx.start(
            directives: """
                ssl_certificate \(certificate.path); ssl_certificate_key \(key.path);
                server { listen unix:\(h1) ssl; location / { \(body) } }
                server { listen unix:\(h2) ssl http2; location / { \(body) } }
                """)
        let trust = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        let direct = NativeTransport {
            $0.proxy = .none
            $0.tls = trust
            $0.http2 = .disabled
        }
        let secureURL = "https+unix://\(try Self.encoded(h1))/status"
        let one = try await Request {
            Url(secureURL)
            Using(direct)
        }.send()
        #expect(one.statusCode == 200)
        #expect(String(decoding: one.body, as: UTF8.self) == "secure over a socket\n")
        #expect(one.metrics.attempts.first?.tlsHandshake != nil)
        #expect(one.metrics.attempts.first?.networkProtocol == "http/1.1")

        var configuration = NativeTransport.Configuration()
        configuration.proxy = .none
        configuration.tls = trust
        try configuration.unixSocketRoutes.route(try #require(URL(string: "https://localhost")), through: h2)
        let routed = NativeTransport(configuration: configuration)
        let two = try await Request {
            Url("https://localhost/status")
            Using(routed)
        }.send()
        #expect(two.statusCode == 200)
        #expect(String(decoding: two.body, as: UTF8.self) == "secure over a socket\n")
        #expect(two.metrics.attempts.first?.networkProtocol == "h2")
        #expect(two.metrics.attempts.first?.remoteAddress == "unix:\(h2)")
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
