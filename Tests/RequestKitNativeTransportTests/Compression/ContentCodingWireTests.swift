import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitTesting
import RequestKitURLSession
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(CBrotli) && canImport(CZstd)
@Suite("Brotli and zstd response bodies, on every transport", .wallClock)
struct ContentCodingWireTests {
    static let codings: [(route: String, coding: String)] = [("brotli", "br"), ("zstd", "zstd")]

    /// Runs `operation` and returns the RequestError it throws.
    static func failure<T>(_ operation: () async throws -> T) async -> RequestError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error as? RequestError
        }
    }

    @Test("A br or zstd body arrives decoded, its Content-Encoding kept", arguments: WireTransport.all)
    func decoded(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for (route, coding) in Self.codings {
            let response = try await Request {
                Url(server.url("/\(route)?x=1"))
                Using(transport.transport)
            }.send()
            #expect(response.headers["Content-Encoding"] == coding)
            let document = try Json(parsing: response.body)
            #expect(document[route].bool == true, "\(route)")
            #expect(document.args.x.string == "1", "\(route)")
        }
    }

    @Test("The native transport offers gzip, deflate, br and zstd unless the request names its own")
    func acceptEncoding() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = try await Request {
            Url(server.url("/get"))
            Using(NativeTransport.shared)
        }.send()
        _ = try await Request {
            Url(server.url("/get"))
            Using(NativeTransport.shared)
            Header.AcceptEncoding("identity")
        }.send()
        let offered = server.requests.map { $0.headers.filter { $0.name == "Accept-Encoding" }.map(\.value) }
        #expect(offered == [["gzip, deflate, br, zstd"], ["identity"]])
    }

    @Test(
        "A br or zstd bomb stops at 100 times the bytes sent, streamed or in memory",
        arguments: WireTransport.all)
    func bombRatio(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for (_, coding) in Self.codings {
            let url = server.url("/hostile/\(coding)-bomb?bytes=\(16 << 20)")
            let streaming = try await Request {
                Url(url)
                Using(transport.transport)
            }.stream()
            let sent = try #require(streaming.head.headers["Content-Length"].flatMap { Int($0) })
            #expect(sent < 2048, "\(coding)")
            var received = 0
            let streamed = await Self.failure {
                for try await chunk in streaming { received += chunk.count }
            }
            #expect(streamed?.kind == .responseTooLarge, "\(coding)")
            #expect(streamed?.detail == "the compressed response body expands more than 100 times", "\(coding)")
            #expect(streamed?.responseHeaders?["Content-Encoding"] == coding, "\(coding)")
            #expect(received <= (1 << 20) + 256 * 1024, "\(coding)")

            let buffered = await Self.failure {
                try await Request {
                    Url(url)
                    Using(transport.transport)
                }.data()
            }
            #expect(buffered?.kind == .responseTooLarge, "\(coding)")
            #expect(buffered?.detail == "the compressed response body expands more than 100 times", "\(coding)")
            #expect(buffered?.statusCode == 200, "\(coding)")
        }
    }

    @Test("A br or zstd bomb sent to data() stops at the byte limit", arguments: WireTransport.all)
    func bombBytes(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for (_, coding) in Self.codings {
            for framing in ["length", "chunked"] {
                let error = await Self.failure {
                    try await Request {
                        Url(server.url("/hostile/\(coding)-bomb?bytes=\(32 << 20)&framing=\(framing)"))
                        Using(transport.transport)
                        ResponseLimits(maxBodyBytes: 8 << 20, maxDecompressionRatio: 1_000_000)
                    }.data()
                }
                #expect(error?.kind == .responseTooLarge, "\(coding) \(framing)")
                #expect(
                    error?.detail == "the response body is larger than the limit of \(8 << 20) bytes",
                    "\(coding) \(framing)")
                #expect(error?.responseHeaders?["Content-Encoding"] == coding, "\(coding) \(framing)")
            }
        }
    }

    /// Routes `/{coding}/truncated` (the stream without its last 4 bytes) and `/{coding}/corrupt` (its first 4 bytes
    /// 0xFF, which start neither a brotli stream nor a zstd frame) on `server`.
    static func routeDamagedBodies(on server: TestServer) throws {
        let plain = Data(String(repeating: "RequestKit decodes this. ", count: 400).utf8)
        for coding in [ContentCoding.brotli, .zstd] {
            let whole = try ContentCompressor.compress(plain, with: coding)
            let bodies = [
                "truncated": whole.prefix(whole.count - 4),
                "corrupt": Data(repeating: 0xFF, count: 4) + whole.dropFirst(4),
            ]
            for (name, body) in bodies {
                server.route("/\(coding.name)/\(name)") { _ in
                    TestResponse(
                        headers: [("Content-Type", "text/plain"), ("Content-Encoding", coding.name)],
                        body: .data(body))
                }
            }
        }
    }

    @Test("The native transport reports a truncated or corrupt br or zstd body as a transport error saying which")
    func truncatedAndCorrupt() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try Self.routeDamagedBodies(on: server)
        for coding in ["br", "zstd"] {
            for (name, reason) in [("truncated", "truncated compressed body"), ("corrupt", "corrupt compressed body")] {
                let error = await Self.failure {
                    try await Request {
                        Url(server.url("/\(coding)/\(name)"))
                        Using(NativeTransport.shared)
                    }.data()
                }
                #expect(error?.kind == .transport, "\(coding) \(name)")
                #expect((error?.underlyingError as? HTTP1ParseError)?.reason == reason, "\(coding) \(name)")
                #expect(error?.detail == "the body could not be decoded", "\(coding) \(name)")
            }
        }
    }

    @Test("A corrupt br or zstd body is a transport error on every transport", arguments: WireTransport.all)
    func corrupt(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        try Self.routeDamagedBodies(on: server)
        for coding in ["br", "zstd"] {
            let error = await Self.failure {
                try await Request {
                    Url(server.url("/\(coding)/corrupt"))
                    Using(transport.transport)
                }.data()
            }
            #expect(error?.kind == .transport, "\(coding)")
        }
    }

    @Test("A coding RequestKit does not decode fails with the body kept exactly as it came")
    func unknownCoding() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let raw = Data([0x00, 0xFF, 0x10, 0x80, 0x41])
        server.route("/squeezed") { _ in
            TestResponse(
                headers: [("Content-Type", "application/json"), ("Content-Encoding", "squeeze")], body: .data(raw))
        }
        let error = await Self.failure {
            try await Request {
                Url(server.url("/squeezed"))
                Using(NativeTransport.shared)
            }.data()
        }
        #expect(error?.kind == .transport)
        #expect(error?.statusCode == 200)
        #expect(error?.responseBody == raw)
        #expect(error?.responseHeaders?["Content-Encoding"] == "squeeze")
        #expect(
            error?.detail
                == "the body is in Content-Encoding squeeze, which RequestKit does not decode; "
                + "error.response holds it as received")

        // URLSession (libcurl on Linux) refuses the coding too, without the response.
        let viaURLSession = await Self.failure {
            try await Request {
                Url(server.url("/squeezed"))
                Using(URLSessionTransport.shared)
            }.data()
        }
        #expect(viaURLSession?.kind == .transport)
    }
}
#endif
