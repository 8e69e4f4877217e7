import Foundation
import RequestKit
import RequestKitTesting
import Testing

@Suite("Response size limits")
struct ResponseLimitsTests {
    /// The message of a body over `limit` bytes.
    static func tooLarge(_ limit: Int) -> String { "the response body is larger than the limit of \(limit) bytes" }
    static let expandsTooMuch = "the compressed response body expands more than 100 times"

    static func size(of url: URL) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int
    }

    /// Runs `operation` and returns the RequestError it throws.
    static func failure<T>(_ operation: () async throws -> T) async -> RequestError? {
        do {
            _ = try await operation()
            return nil
        } catch {
            return error as? RequestError
        }
    }

    @Test(
        "A body over MaxResponseSize fails with responseTooLarge; one at the limit arrives",
        arguments: WireTransport.all)
    func bufferedLimit(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let atLimit = try await Request {
            Url(server.url("/bytes/1024"))
            Using(transport.transport)
            MaxResponseSize(1024)
        }.data()
        #expect(atLimit.count == 1024)
        let failure = await Self.failure {
            try await Request {
                Url(server.url("/bytes/1025"))
                Using(transport.transport)
                MaxResponseSize(1024)
            }.data()
        }
        let error = try #require(failure)
        #expect(error.kind == .responseTooLarge)
        #expect(error.detail == Self.tooLarge(1024))
        #expect(
            error.description.hasPrefix(
                "responseTooLarge for GET \(server.url("/bytes/1025").absoluteString) (\(Self.tooLarge(1024)))"))
    }

    @Test("json(), decode() and string() on a client stop at the client's limit", arguments: WireTransport.all)
    func clientLimit(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let client = Client(baseURL: server.url("/")) { configuration in
            configuration.transport = transport.transport
            configuration.responseLimits.maxBodyBytes = 100
        }
        let json = await Self.failure { try await client.json(Request { Path("json") }) }
        #expect(json?.kind == .responseTooLarge)
        #expect(json?.detail == Self.tooLarge(100))
        let decoded = await Self.failure { try await client.decode(Request { Path("json") }, as: Json.self) }
        #expect(decoded?.kind == .responseTooLarge)
        let text = await Self.failure { try await client.string(Request { Path("json") }) }
        #expect(text?.kind == .responseTooLarge)
        let raised = try await client.json(
            Request {
                Path("json"); MaxResponseSize(1 << 20)
            })
        #expect(raised["slideshow"]["title"] == "Sample Slide Show")
    }

    @Test("The default limits: 64 MiB in memory, streams unbounded, a ratio of 100, a 256 MiB spool")
    func defaults() {
        let limits = ResponseLimits()
        #expect(limits.maxBodyBytes == 64 << 20)
        #expect(limits.maxStreamedBodyBytes == nil)
        #expect(limits.maxDecompressionRatio == 100)
        #expect(limits.maxSpoolBytes == 256 << 20)
        #expect(Client(baseURL: URL(fileURLWithPath: "/")).configuration.responseLimits == limits)
    }

    @Test(
        "An endless body sent to data() stops at the limit, chunked or delimited by close", arguments: WireTransport.all
    )
    func endlessBody(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        for framing in ["chunked", "close"] {
            let error = await Self.failure {
                try await Request {
                    Url(server.url("/hostile/endless?framing=\(framing)"))
                    Using(transport.transport)
                    MaxResponseSize(4 << 20)
                }.data()
            }
            #expect(error?.kind == .responseTooLarge, "\(framing)")
            #expect(error?.detail == Self.tooLarge(4 << 20), "\(framing)")
        }
    }

    @Test("A gzip bomb sent to data() stops at the limit", arguments: WireTransport.all)
    func gzipBombBuffered(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        for framing in ["length", "chunked"] {
            let error = await Self.failure {
                try await Request {
                    Url(server.url("/hostile/gzip-bomb?bytes=\(256 << 20)&framing=\(framing)"))
                    Using(transport.transport)
                    MaxResponseSize(8 << 20)
                }.data()
            }
            #expect(error?.kind == .responseTooLarge, "\(framing)")
            #expect(error?.detail == Self.tooLarge(8 << 20), "\(framing)")
        }
    }

    @Test("A streamed gzip bomb with a Content-Length stops at 100 times the bytes sent", arguments: WireTransport.all)
    func gzipBombStreamed(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let streaming = try await Request {
            Url(server.url("/hostile/gzip-bomb?bytes=\(64 << 20)"))
            Using(transport.transport)
        }.stream()
        let sent = try #require(streaming.head.headers["Content-Length"].flatMap { Int($0) })
        var received = 0
        let error = await Self.failure {
            for try await chunk in streaming { received += chunk.count }
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.detail == Self.expandsTooMuch)
        // HTTP1Transport stops inside the first piece that expands too much; URLSession decodes before RequestKit
        // sees the bytes, so it stops once the decoded total passes 100 times the Content-Length.
        #expect(received <= max(1 << 20, 100 * sent) + 256 * 1024)
    }

    @Test(
        "stream() and download(to:) move more than the buffered limit unless MaxResponseSize(streamed:) says otherwise",
        arguments: WireTransport.all)
    func streamedLimit(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let size = 3 << 20
        let streamed = try await Request {
            Url(server.url("/large/\(size)"))
            Using(transport.transport)
            MaxResponseSize(1 << 20)
        }.stream().collect()
        #expect(streamed.count == size)
        let limited = await Self.failure {
            try await Request {
                Url(server.url("/large/\(size)"))
                Using(transport.transport)
                MaxResponseSize(streamed: 1 << 20)
            }.stream().collect()
        }
        #expect(limited?.kind == .responseTooLarge)
        #expect(limited?.detail == Self.tooLarge(1 << 20))

        let file = try TemporaryFile(contents: Data("before".utf8))
        defer { file.remove() }
        try await Request {
            Url(server.url("/large/\(size)"))
            Using(transport.transport)
            MaxResponseSize(1 << 20)
        }.download(to: file.url)
        #expect(Self.size(of: file.url) == size)
        let download = await Self.failure {
            try await Request {
                Url(server.url("/large/\(size)"))
                Using(transport.transport)
                MaxResponseSize(streamed: 1 << 20)
            }.download(to: file.url)
        }
        #expect(download?.kind == .responseTooLarge)
        #expect(download?.detail == Self.tooLarge(1 << 20))
        #expect(Self.size(of: file.url) == size)
        #expect(file.directoryEntries == ["file.bin"])
    }

    @Test("collect(upTo:) past its limit is responseTooLarge", arguments: WireTransport.all)
    func collectLimit(_ transport: WireTransport) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let error = await Self.failure {
            try await Request {
                Url(server.url("/bytes/2000"))
                Using(transport.transport)
            }.stream().collect(upTo: 1000)
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.detail == Self.tooLarge(1000))
    }

    @Test("A custom transport's oversized body is refused by the exchange")
    func customTransport() async throws {
        let mock = MockTransport { _ in Response(status: .ok, body: Data(count: 11)) }
        let error = await Self.failure {
            try await Request {
                Url("http://127.0.0.1:9/x")
                Using(mock)
                MaxResponseSize(10)
            }.data()
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.detail == Self.tooLarge(10))
        #expect(error?.statusCode == 200)
    }

    @Test("A negative MaxResponseSize is a request problem")
    func negativeLimit() throws {
        let error = #expect(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:9/x"); MaxResponseSize(-1)
            }.urlRequest()
        }
        #expect(error?.problems.map(\.message) == ["a response size limit must not be negative, not -1"])
    }
}
