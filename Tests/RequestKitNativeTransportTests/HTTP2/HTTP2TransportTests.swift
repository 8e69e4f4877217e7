#if canImport(CNghttp2) && os(Linux)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitNativeTransport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport over HTTP/2 against nginx from Debian (`http2` on its TLS listener, and h2c with prior knowledge):
/// what is negotiated, how many connections a burst takes, and the responses' bytes.
@Suite("HTTP/2 through the transport against nginx", .enabled(if: LocalNginx.isInstalled), .wallClock)
struct HTTP2TransportTests {
    /// nginx on TLS with `http2`, logging each request's connection number and protocol to `access.log`.
    private static func startNginx(maxConcurrentStreams: Int = 128, extra: String = "") async throws -> LocalNginx {
        let nginx = try LocalNginx()
        let certificate = nginx.directory.appendingPathComponent("valid.pem")
        let key = nginx.directory.appendingPathComponent("valid-key.pem")
        try Data(TestCertificate.valid.certificatePEM.utf8).write(to: certificate)
        try Data(TestCertificate.valid.privateKeyPEM.utf8).write(to: key)
        try Data("over h2\n".utf8).write(to: nginx.root.appendingPathComponent("hello.txt"))
        try Data(repeating: 0x61, count: 300_000).write(to: nginx.root.appendingPathComponent("large.bin"))
        let log = nginx.directory.appendingPathComponent("access.log")
        try await nginx.start(
            directives: """
                ssl_certificate \(certificate.path); ssl_certificate_key \(key.path);
                log_format connections '$connection $server_protocol $request_uri';
                access_log \(log.path) connections;
                http2_max_concurrent_streams \(maxConcurrentStreams);
                \(extra)
                """,
            listen: "ssl http2")
        return nginx
    }

    private static func transport(
        _ configure: (inout NativeTransport.Configuration) -> Void = { _ in }
    ) -> NativeTransport {
        NativeTransport { configuration in
            configuration.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
            configure(&configuration)
        }
    }

    /// The access log's lines for requests whose URI starts with `prefix`: (connection number, protocol).
    private static func logged(_ nginx: LocalNginx, prefix: String) throws -> [(connection: String, protocol: String)] {
        let text = try String(contentsOf: nginx.directory.appendingPathComponent("access.log"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[2].hasPrefix(prefix) else { return nil }
            return (String(parts[0]), String(parts[1]))
        }
    }

    @Test("https negotiates HTTP/2 by default: the file's bytes, and metrics that say h2")
    func negotiatesByDefault() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let transport = Self.transport()
        let response = try await transport.send(
            TransferRequest(URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/hello.txt?one")!)))
        #expect(response.status.code == 200)
        #expect(response.body == Data("over h2\n".utf8))
        #expect(response.headers["Content-Length"] == "8")
        #expect(response.metrics.attempts.last?.networkProtocol == "h2")
        #expect(try Self.logged(nginx, prefix: "/hello.txt?one").map(\.protocol) == ["HTTP/2.0"])
    }

    @Test("HTTP/2 turned off, the same server is spoken to over HTTP/1.1")
    func disabled() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let transport = Self.transport { $0.http2 = .disabled }
        let response = try await transport.send(
            TransferRequest(URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/hello.txt?off")!)))
        #expect(response.body == Data("over h2\n".utf8))
        #expect(response.metrics.attempts.last?.networkProtocol == "http/1.1")
        #expect(try Self.logged(nginx, prefix: "/hello.txt?off").map(\.protocol) == ["HTTP/1.1"])
    }

    @Test("64 requests at once to a new host take one connection, every response whole")
    func burstTakesOneConnection() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let transport = Self.transport()
        let port = nginx.port
        let bodies = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let url = URL(string: "https://127.0.0.1:\(port)/large.bin?burst=\(index)")!
                    return try await transport.send(TransferRequest(URLRequest(url: url))).body.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: 300_000, count: 64))
        let lines = try Self.logged(nginx, prefix: "/large.bin?burst=")
        #expect(lines.count == 64)
        #expect(Set(lines.map(\.connection)).count == 1)
        #expect(Set(lines.map(\.protocol)) == ["HTTP/2.0"])
    }

    @Test("A server that allows 4 streams at once gets a second connection under load, never more than the limit")
    func secondConnectionUnderLoad() async throws {
        let nginx = try await Self.startNginx(maxConcurrentStreams: 4)
        defer { nginx.stop() }
        let transport = Self.transport { $0.maxConnectionsPerHost = 3 }
        let port = nginx.port
        // One request first: the pool learns the server's limit before the burst.
        _ = try await transport.send(
            TransferRequest(URLRequest(url: URL(string: "https://127.0.0.1:\(port)/hello.txt?warm")!)))
        let bodies = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<40 {
                group.addTask {
                    let url = URL(string: "https://127.0.0.1:\(port)/large.bin?load=\(index)")!
                    return try await transport.send(TransferRequest(URLRequest(url: url))).body.count
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(bodies == Array(repeating: 300_000, count: 40))
        let connections = Set(try Self.logged(nginx, prefix: "/large.bin?load=").map(\.connection))
        #expect(connections.count > 1)
        #expect(connections.count <= 3)
    }

    @Test("h2c with prior knowledge: plain http to a server named in the policy speaks HTTP/2")
    func priorKnowledge() async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        try Data("plain h2\n".utf8).write(to: nginx.root.appendingPathComponent("plain.txt"))
        let log = nginx.directory.appendingPathComponent("access.log")
        try await nginx.start(
            directives:
                "log_format connections '$connection $server_protocol $request_uri'; access_log \(log.path) connections;",
            listen: "http2")
        let transport = NativeTransport { $0.http2 = .priorKnowledge(for: ["127.0.0.1:\(nginx.port)"]) }
        let response = try await transport.send(
            TransferRequest(URLRequest(url: URL(string: "http://127.0.0.1:\(nginx.port)/plain.txt?h2c")!)))
        #expect(response.body == Data("plain h2\n".utf8))
        #expect(response.metrics.attempts.last?.networkProtocol == "h2")
        #expect(try Self.logged(nginx, prefix: "/plain.txt?h2c").map(\.protocol) == ["HTTP/2.0"])
    }

    @Test("An idle HTTP/2 connection is checked with PINGs the server answers, and carries the next request")
    func idlePings() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        // An interval the answer comes well within however busy the machine: the check counts answers, not time.
        let transport = Self.transport { $0.http2PingInterval = 0.5 }
        let url = URL(string: "https://127.0.0.1:\(nginx.port)/hello.txt?ping")!
        _ = try await transport.send(TransferRequest(URLRequest(url: url)))
        let connections = try transport.pool().http2Connections
        try #require(connections.count == 1)
        // Wait (up to 1,000 looks) until the server has answered two.
        for _ in 0..<1_000 where connections[0].pingsAnswered.load() < 2 {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(connections[0].pingsAnswered.load() >= 2)
        let second = try await transport.send(TransferRequest(URLRequest(url: url)))
        #expect(second.metrics.attempts.last?.isReusedConnection == true)
        #expect(Set(try Self.logged(nginx, prefix: "/hello.txt?ping").map(\.connection)).count == 1)
    }

    @Test("An idle HTTP/2 connection whose server stopped answering fails its PING and is dropped before reuse")
    func silentServerDropped() async throws {
        let server = try FreezingHTTP2Server()
        defer { server.stop() }
        let transport = NativeTransport {
            $0.http2 = .priorKnowledge(for: ["127.0.0.1:\(server.port)"])
            $0.http2PingInterval = 0.02
        }
        let url = URL(string: "http://127.0.0.1:\(server.port)/first")!
        let first = try await transport.send(TransferRequest(URLRequest(url: url)))
        #expect(first.body == Data("ok".utf8))
        // The silent connection is dropped once its PING goes unanswered: wait (up to 500 looks) until it is.
        for _ in 0..<500 where try !transport.pool().http2Connections.isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try transport.pool().http2Connections.isEmpty)
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/second")!)
        request.timeoutInterval = 30
        let second = try await transport.send(TransferRequest(request))
        #expect(second.body == Data("ok".utf8))
        #expect(second.metrics.attempts.last?.isReusedConnection == false)
        #expect(server.acceptedCount == 2)
    }

    @Test("nginx going away every 5 requests: 60 requests at once all answered, on new connections, as sent once")
    func goAwayRetried() async throws {
        let nginx = try await Self.startNginx(extra: "keepalive_requests 5;")
        defer { nginx.stop() }
        let transport = Self.transport()
        let port = nginx.port
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<60 {
                group.addTask {
                    let url = URL(string: "https://127.0.0.1:\(port)/hello.txt?away=\(index)")!
                    let response = try await transport.send(TransferRequest(URLRequest(url: url)))
                    #expect(response.body == Data("over h2\n".utf8))
                    return response.status.code
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 60))
        let lines = try Self.logged(nginx, prefix: "/hello.txt?away=")
        // Each request reached nginx once: those it went away before were not processed, and were sent again.
        #expect(lines.count == 60)
        #expect(Set(lines.map(\.connection)).count >= 12)
    }

    @Test("Uploads over HTTP/2 (h2c to nghttpd): a body from memory and a 1 MB file, echoed back byte for byte")
    func uploads() async throws {
        let server = try await Nghttpd.start(arguments: ["--echo-upload", "--window-bits=14"])
        defer { server.stop() }
        let transport = NativeTransport { $0.http2 = .priorKnowledge }
        let url = URL(string: "http://127.0.0.1:\(server.port)/echo")!
        let small = Data("name=ada&lang=swift".utf8)
        let echoed = try await Request {
            Url(url); Method(.post); Body(small, contentType: .formURLEncoded); Using(transport)
        }.send()
        #expect(echoed.statusCode == 200)
        #expect(echoed.body == small)
        #expect(echoed.metrics.attempts.last?.networkProtocol == "h2")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("h2-upload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let large = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try large.write(to: file)
        let fromFile = try await Request {
            Url(url); Method(.put); Body(file: file); Using(transport)
        }.send()
        #expect(fromFile.statusCode == 200)
        #expect(fromFile.body == large)
    }

    @Test("A gzip body over HTTP/2 is decoded as over HTTP/1.1")
    func gzip() async throws {
        let nginx = try await Self.startNginx(
            extra: "gzip on; gzip_min_length 0; gzip_types text/plain application/octet-stream;")
        defer { nginx.stop() }
        let text = String(repeating: "HTTP/2 carries compressed bodies too. ", count: 400)
        try Data(text.utf8).write(to: nginx.root.appendingPathComponent("text.txt"))
        let response = try await Self.transport().send(
            TransferRequest(URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/text.txt")!)))
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(response.body == Data(text.utf8))
    }

    @Test("A body over the limit resets its stream alone: the error keeps the head, the connection serves the next")
    func limitResetsStream() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let transport = Self.transport()
        var request = TransferRequest(
            URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/large.bin?limit=1")!))
        request.responseLimits.maxBodyBytes = 1_000
        do {
            _ = try await transport.send(request)
            Issue.record("a 300,000-byte body passed a 1,000-byte limit")
        } catch let error as RequestError {
            #expect(error.kind == .responseTooLarge)
            #expect(error.response?.status.code == 200)
        }
        let next = try await transport.send(
            TransferRequest(URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/hello.txt?limit=2")!)))
        #expect(next.body == Data("over h2\n".utf8))
        #expect(next.metrics.attempts.last?.isReusedConnection == true)
        let connections =
            try Self.logged(nginx, prefix: "/hello.txt?limit=").map(\.connection)
            + Self.logged(nginx, prefix: "/large.bin?limit=").map(\.connection)
        #expect(Set(connections).count == 1)
    }

    @Test("A streamed body abandoned half-way resets its stream alone; the connection serves the next request")
    func abandonedStream() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let transport = Self.transport()
        var request = TransferRequest(
            URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/large.bin?abandon=1")!))
        request.bufferLimit = 16 * 1024
        do {
            let response = try await transport.stream(request)
            var iterator = response.body.makeAsyncIterator()
            let first = try await iterator.next()
            #expect((first?.count ?? 0) > 0)
            iterator.terminate()
        }
        let next = try await transport.send(
            TransferRequest(URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/hello.txt?abandon=2")!)))
        #expect(next.body == Data("over h2\n".utf8))
        #expect(next.metrics.attempts.last?.isReusedConnection == true)
        #expect(try transport.pool().http2Connections.count == 1)
    }

    @Test(
        "Through tinyproxy's CONNECT tunnel, TLS with the origin picks h2 and 8 requests at once share the tunnel",
        .enabled(if: RealProxy.isRunnable("tinyproxy")))
    func throughProxyTunnel() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let proxy = try await RealProxy.tinyproxy()
        defer { proxy.stop() }
        let transport = Self.transport { $0.proxy = .http(host: "127.0.0.1", port: proxy.port) }
        let port = nginx.port
        let protocols = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let url = URL(string: "https://127.0.0.1:\(port)/hello.txt?tunnel=\(index)")!
                    let response = try await transport.send(TransferRequest(URLRequest(url: url)))
                    #expect(response.body == Data("over h2\n".utf8))
                    return response.metrics.attempts.last?.networkProtocol
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(protocols == Array(repeating: "h2", count: 8))
        let lines = try Self.logged(nginx, prefix: "/hello.txt?tunnel=")
        #expect(lines.count == 8)
        #expect(Set(lines.map(\.connection)).count == 1)
    }

    @Test("A streamed body over HTTP/2 arrives whole, read at the consumer's pace")
    func streamed() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let transport = Self.transport()
        var request = TransferRequest(
            URLRequest(url: URL(string: "https://127.0.0.1:\(nginx.port)/large.bin?streamed")!))
        request.bufferLimit = 16 * 1024
        let response = try await transport.stream(request)
        var total = 0
        for try await piece in response.body {
            #expect(piece.allSatisfy { $0 == 0x61 })
            total += piece.count
        }
        #expect(response.head.status.code == 200)
        #expect(total == 300_000)
    }
}
#endif
