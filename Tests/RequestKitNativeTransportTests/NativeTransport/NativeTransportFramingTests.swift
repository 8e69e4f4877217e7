import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTesting
import Testing

@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

@Suite("NativeTransport: request framing and response handling", .wallClock)
struct NativeTransportFramingTests {
    @Test("The request arrives with the exact target, Host, Content-Length and keep-alive")
    func requestBytes() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        var request = URLRequest(
            url: try #require(URL(string: "\(server.url("/anything"))/a%2Fb%20c?x=%41&y=a+b#frag")))
        request.httpMethod = "POST"
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data("hello".utf8)
        let response = try await transport.send(request)
        #expect(response.statusCode == 200)
        let received = try #require(server.requests.last)
        #expect(received.target == "/anything/a%2Fb%20c?x=%41&y=a+b")
        #expect(received.httpVersion == "HTTP/1.1")
        #expect(
            received.headers.map(\.name) == ["Content-Type", "Host", "Content-Length", "Accept-Encoding", "Connection"])
        #expect(received.header("Host") == "127.0.0.1:\(server.port)")
        #expect(received.header("Content-Length") == "5")
        #expect(received.header("Connection") == "keep-alive")
        #expect(received.header("Accept-Encoding") == ContentDecoder.acceptEncoding)
        #expect(received.body == Data("hello".utf8))
    }

    @Test("A GET without a body sends no Content-Length; a POST without one sends 0")
    func emptyBodies() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        _ = try await transport.send(URLRequest(url: server.url("/get")))
        var post = URLRequest(url: server.url("/post"))
        post.httpMethod = "POST"
        _ = try await transport.send(post)
        let requests = server.requests
        #expect(requests.map { $0.header("Content-Length") } == [nil, "0"])
    }

    @Test("A value with CR or LF never reaches the wire, even when it bypasses the executor")
    func noInjection() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url("/get"))
        request.setValue("a\r\nX-Injected: 1", forHTTPHeaderField: "X-Evil")
        _ = try? await NativeTransport().send(request)
        for received in server.requests {
            #expect(received.header("X-Injected") == nil)
            #expect(received.header("X-Evil") == nil)
        }
    }

    @Test("Response headers keep wire order and duplicates")
    func headerOrder() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/cookies") { _ in
            TestResponse(
                headers: [("Set-Cookie", "a=1"), ("X-Middle", "m"), ("Set-Cookie", "b=2")], body: .data(Data("ok".utf8))
            )
        }
        let response = try await NativeTransport().send(URLRequest(url: server.url("/cookies")))
        #expect(response.headers.values(for: "Set-Cookie") == ["a=1", "b=2"])
        let names = response.headers.fields.map(\.name).filter { $0 == "Set-Cookie" || $0 == "X-Middle" }
        #expect(names == ["Set-Cookie", "X-Middle", "Set-Cookie"])
        #expect(response.body == Data("ok".utf8))
    }

    @Test("Chunked bodies with trailers arrive whole, and the connection is reused")
    func chunkedWithTrailers() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/trailers") { _ in
            TestResponse(
                body: .chunked([Data("ab".utf8), Data("cde".utf8)], trailers: [("X-Checksum", "123")]))
        }
        let transport = NativeTransport()
        let first = try await transport.send(URLRequest(url: server.url("/trailers")))
        let second = try await transport.send(URLRequest(url: server.url("/chunked?chunks=4&size=3")))
        #expect(first.body == Data("abcde".utf8))
        #expect(second.body.count == 12)
        #expect(server.stats.totalConnections == 1)
    }

    @Test("A trailer field longer than a chunk-size line arrives whole, and the connection is reused")
    func longTrailer() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let long = String(repeating: "t", count: 6000)
        server.route("/long-trailer") { _ in
            TestResponse(body: .chunked([Data("ab".utf8)], trailers: [("X-Long", long)]))
        }
        let transport = NativeTransport()
        for _ in 0..<2 {
            let response = try await transport.send(URLRequest(url: server.url("/long-trailer")))
            #expect(response.body == Data("ab".utf8))
        }
        #expect(server.stats.totalConnections == 1)
    }

    @Test("Content-Length beside Transfer-Encoding is a framing error, and the connection is not reused")
    func contentLengthWithTransferEncoding() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/smuggle") { _ in
            TestResponse(
                body: .raw { writer in
                    try writer.writeRaw(
                        Data(
                            "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
                                .utf8))
                })
        }
        let transport = NativeTransport()
        let error = await #expect(throws: RequestError.self) {
            try await transport.send(URLRequest(url: server.url("/smuggle")))
        }
        #expect(
            error?.detail == "both Content-Length and Transfer-Encoding are present", "\(String(describing: error))")
        let next = try await transport.send(URLRequest(url: server.url("/get")))
        #expect(next.statusCode == 200)
        #expect(server.stats.totalConnections == 2)
    }

    @Test("HEAD, 204 and 304 responses have no body and leave the connection usable")
    func bodiless() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/not-modified") { _ in TestResponse(status: 304, headers: [("ETag", "\"v1\"")]) }
        let transport = NativeTransport()
        var head = URLRequest(url: server.url("/large/5000"))
        head.httpMethod = "HEAD"
        let headResponse = try await transport.send(head)
        let noContent = try await transport.send(URLRequest(url: server.url("/status/204")))
        let notModified = try await transport.send(URLRequest(url: server.url("/not-modified")))
        let after = try await transport.send(URLRequest(url: server.url("/get")))
        #expect(headResponse.statusCode == 200)
        #expect(headResponse.body.isEmpty)
        #expect(headResponse.headers["Content-Length"] == "5000")
        #expect(noContent.body.isEmpty)
        #expect(notModified.statusCode == 304)
        #expect(notModified.body.isEmpty)
        #expect(after.statusCode == 200)
        #expect(server.stats.totalConnections == 1)
    }

    @Test("Connection: close and HTTP/1.0 responses are read to the end and not reused")
    func connectionClose() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/close") { _ in
            TestResponse(headers: [("Connection", "close")], body: .data(Data("bye".utf8)))
        }
        server.route("/http10") { _ in
            TestResponse(body: .raw { try $0.writeRaw(Data("HTTP/1.0 200 OK\r\nX-Old: yes\r\n\r\nuntil close".utf8)) })
        }
        let transport = NativeTransport()
        let closed = try await transport.send(URLRequest(url: server.url("/close")))
        let old = try await transport.send(URLRequest(url: server.url("/http10")))
        _ = try await transport.send(URLRequest(url: server.url("/get")))
        #expect(closed.body == Data("bye".utf8))
        #expect(old.body == Data("until close".utf8))
        #expect(old.headers["X-Old"] == "yes")
        #expect(server.stats.totalConnections == 3)
    }

    @Test("Informational responses are skipped")
    func informational() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/continue") { _ in
            TestResponse(
                body: .raw {
                    try $0.writeRaw(
                        Data("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n".utf8))
                    try $0.writeRaw(Data("HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok".utf8))
                })
        }
        let response = try await NativeTransport().send(URLRequest(url: server.url("/continue")))
        #expect(response.statusCode == 201)
        #expect(response.body == Data("ok".utf8))
    }

    @Test("gzip and deflate bodies are decompressed; an unknown coding is a typed error")
    func compressed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/compress") { _ in
            TestResponse(headers: [("Content-Encoding", "compress")], body: .data(Data([1, 2, 3])))
        }
        let transport = NativeTransport()
        let gzip = try await Request {
            Url(server.url("/gzip")); Using(transport)
        }.json()
        let deflate = try await Request {
            Url(server.url("/deflate")); Using(transport)
        }.json()
        #expect(gzip.gzipped.bool == true)
        #expect(deflate.deflated.bool == true)
        let error = try await #require(throws: RequestError.self) {
            try await transport.send(URLRequest(url: server.url("/compress")))
        }
        #expect(error.kind == .transport)
        #expect(error.underlyingError as? HTTP1ParseError == HTTP1ParseError("unsupported Content-Encoding compress"))
        #expect(error.response?.body == Data([1, 2, 3]))
    }

    @Test("A redirect comes back as it is: following it is the pipeline's job")
    func returnsRedirects() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/temporary") { _ in .redirect(to: "/anything", status: 307) }
        var post = URLRequest(url: server.url("/temporary"))
        post.httpMethod = "POST"
        post.httpBody = Data("x=1".utf8)
        let response = try await NativeTransport().send(post)
        #expect(response.statusCode == 307)
        #expect(response.headers["Location"] == "/anything")
        #expect(response.url == server.url("/temporary"))
        let streamed = try await NativeTransport().stream(TransferRequest(post))
        #expect(streamed.head.statusCode == 307)
        #expect(
            server.requests.map { "\($0.method) \($0.path) \($0.body.count)" } == [
                "POST /temporary 3", "POST /temporary 3",
            ])
    }

    #if os(Linux)
    @Test("On Linux https requests are sent by the transport itself, never to the secure transport")
    func httpsSentNatively() async throws {
        let server = try TestServer { $0.tls = .init() }
        defer { server.stop() }
        let mock = MockTransport { _ in Response(status: HTTPStatus(code: 599), body: Data("via mock".utf8)) }
        let transport = NativeTransport {
            $0.secureTransport = mock
            $0.tls.additionalRoots = [.data(Data(TestCertificate.authorityPEM.utf8))]
        }
        let response = try await transport.send(URLRequest(url: server.url("/status/201")))
        #expect(response.statusCode == 201)
        #expect(server.requests.map(\.path) == ["/status/201"])
    }
    #else
    @Test("https requests go to the secure transport")
    func httpsForwarded() async throws {
        let mock = MockTransport { _ in Response(status: HTTPStatus(code: 200), body: Data("via mock".utf8)) }
        let transport = NativeTransport { $0.secureTransport = mock }
        let response = try await transport.send(URLRequest(url: try #require(URL(string: "https://example.com/x"))))
        #expect(response.body == Data("via mock".utf8))
    }
    #endif
}
