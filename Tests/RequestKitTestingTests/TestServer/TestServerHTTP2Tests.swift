#if os(Linux)
import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitSockets
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// TestServer's HTTP/2 mode, through the native transport: the same routes over streams of one connection.
@Suite("TestServer over HTTP/2", .wallClock)
struct TestServerHTTP2Tests {
    /// The native transport trusting the test CA, HTTP/2 negotiated by ALPN.
    static let tls = NativeTransport {
        $0.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
    }

    static func server(streams: Int = 100) throws -> TestServer {
        try TestServer {
            $0.tls = TestServer.TLS()
            $0.http2 = TestServer.HTTP2(maxConcurrentStreams: streams)
        }
    }

    @Test("Over TLS, ALPN picks h2: the request arrives as HTTP/2.0 with its authority as Host, and metrics say h2")
    func negotiated() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/anything/negotiated?x=1")); Using(Self.tls)
        }.send()
        #expect(response.statusCode == 200)
        #expect(response.metrics.attempts.last?.networkProtocol == "h2")
        let request = try #require(server.requests.first)
        #expect(request.httpVersion == "HTTP/2.0")
        #expect(request.target == "/anything/negotiated?x=1")
        #expect(request.header("Host") == "127.0.0.1:\(server.port)")
    }

    @Test("A client with HTTP/2 turned off is answered over HTTP/1.1 by the same server")
    func http1Client() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let transport = NativeTransport {
            $0.tls = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
            $0.http2 = .disabled
        }
        let response = try await Request {
            Url(server.url("/get")); Using(transport)
        }.send()
        #expect(response.metrics.attempts.last?.networkProtocol == "http/1.1")
        #expect(server.requests.map(\.httpVersion) == ["HTTP/1.1"])
    }

    @Test("A plain connection that opens with the HTTP/2 preface speaks h2c; one that does not speaks HTTP/1.1")
    func priorKnowledge() async throws {
        let server = try TestServer { $0.http2 = TestServer.HTTP2() }
        defer { server.stop() }
        let h2c = NativeTransport { $0.http2 = .priorKnowledge }
        let first = try await Request {
            Url(server.url("/bytes/5")); Using(h2c)
        }.send()
        let second = try await Request {
            Url(server.url("/bytes/5")); Using(NativeTransport.shared)
        }.send()
        #expect(first.body.count == 5)
        #expect(first.metrics.attempts.last?.networkProtocol == "h2")
        #expect(second.metrics.attempts.last?.networkProtocol == "http/1.1")
        #expect(server.requests.map(\.httpVersion) == ["HTTP/2.0", "HTTP/1.1"])
    }

    @Test("Header names arrive in lower case, and connection-specific fields are never sent")
    func fieldsOnTheWire() async throws {
        let server = try Self.server()
        defer { server.stop() }
        _ = try await Request {
            Url(server.url("/anything/fields")); Using(Self.tls)
            Header.Any("X-Mixed-Case", "Value Kept")
            Header.Any("Connection", "keep-alive")
            Header.Any("Keep-Alive", "timeout=5")
            Header.Any("Upgrade", "websocket")
        }.send()
        let request = try #require(server.requests.first)
        let names = request.headers.map(\.name)
        #expect(names == names.map { $0.lowercased() }, "\(names)")
        #expect(request.header("x-mixed-case") == "Value Kept")
        for name in ["connection", "keep-alive", "upgrade", "transfer-encoding"] {
            #expect(request.header(name) == nil, "\(name) was sent: \(request.headers)")
        }
        #expect(request.header("te") == nil || request.header("te") == "trailers")
    }

    @Test("64 requests at once share one connection, and each gets its own body")
    func multiplexed() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let response = try await Request {
                        Url(server.url("/anything/\(index)")); Using(Self.tls)
                    }.send()
                    return (index, response.body)
                }
            }
            return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
        }
        #expect(bodies.count == 64)
        for (index, body) in bodies {
            #expect(String(decoding: body, as: UTF8.self).contains("\"/anything/\(index)\""))
        }
        #expect(server.stats.totalConnections == 1)
    }

    @Test("A chunked body with pauses and trailers arrives whole and exact")
    func chunkedWithTrailers() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let chunks = (0..<5).map { Data("part \($0);".utf8) }
        server.route("/parts") { _ in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .chunked(chunks, interval: .milliseconds(20), trailers: [("X-Checksum", "abc")]))
        }
        let response = try await Request {
            Url(server.url("/parts")); Using(Self.tls)
        }.send()
        #expect(response.statusCode == 200)
        #expect(response.body == chunks.reduce(Data(), +))
    }

    @Test("A body written by a closure on a handler thread arrives whole, 1 MiB in small writes")
    func closureBody() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let block = Data((0..<1024).map { UInt8($0 % 251) })
        server.route("/written") { _ in
            TestResponse(body: .stream { writer in for _ in 0..<1024 { try writer.write(block) } })
        }
        let response = try await Request {
            Url(server.url("/written")); Using(Self.tls)
        }.send()
        var expected = Data()
        for _ in 0..<1024 { expected.append(block) }
        #expect(response.body == expected)
    }

    @Test("A 4 MiB upload arrives whole under flow control, as the server's digest of it shows")
    func upload() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let payload = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = try TemporaryFile(contents: payload, name: "upload.bin")
        defer { file.remove() }
        let response = try await Request {
            Url(server.url("/upload")); Method(.post); Using(Self.tls)
            Body(file: file.url, contentType: "application/octet-stream")
        }.send()
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"bytes\":\(payload.count)"))
        #expect(server.requests.first?.body == payload)
    }

    @Test("A cancelled stream is counted as aborted, and the connection serves the next request")
    func cancelled() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let firstChunk = AsyncStream<Void>.makeStream()
        let task = Task {
            let streaming = try await Request {
                Url(server.url("/drip?numbytes=100&duration=100")); Using(Self.tls)
            }.stream()
            for try await _ in streaming.body { firstChunk.continuation.yield() }
        }
        var chunks = firstChunk.stream.makeAsyncIterator()
        _ = await chunks.next()
        task.cancel()
        #expect(await server.waitUntil { $0.abortedRequests == 1 }, "\(server.stats)")
        let next = try await Request {
            Url(server.url("/get")); Using(Self.tls)
        }.send()
        #expect(next.statusCode == 200)
        #expect(server.stats.totalConnections == 1)
    }
}
#endif
