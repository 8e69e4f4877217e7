import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Response size limits", .wallClock)
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
        "A body over MaxResponseSize fails with responseTooLarge, keeping the head; one at the limit arrives",
        arguments: WireTransport.all)
    func bufferedLimit(_ transport: WireTransport) async throws {
        let server = try transport.server()
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
        #expect(error.statusCode == 200)
        #expect(error.responseHeaders?["Content-Type"] == "application/octet-stream")
        #expect(error.responseHeaders?["Content-Length"] == "1025")
        #expect(error.responseBody == Data())
        #expect(
            error.description.hasPrefix(
                "responseTooLarge for GET \(server.url("/bytes/1025").absoluteString) (\(Self.tooLarge(1024)))"))
    }

    @Test("data() with DownloadProgress stops at the limit too", arguments: WireTransport.all)
    func progressLimit(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let error = await Self.failure {
            try await Request {
                Url(server.url("/bytes/5000"))
                Using(transport.transport)
                MaxResponseSize(4000)
                DownloadProgress { _ in }
            }.data()
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.detail == Self.tooLarge(4000))
        #expect(error?.statusCode == 200)
    }

    @Test("json(), decode() and string() on a client stop at the client's limit", arguments: WireTransport.all)
    func clientLimit(_ transport: WireTransport) async throws {
        let server = try transport.server()
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
                Path("json")
                MaxResponseSize(1 << 20)
            })
        #expect(raised["slideshow"]["title"].string == "Sample Slide Show")
    }

    @Test("The default limits: 64 MiB in memory, streams unbounded, a ratio of 100, a 256 MiB spool")
    func defaults() {
        let limits = ResponseLimits()
        #expect(limits.maxBodyBytes == 64 << 20)
        #expect(limits.maxStreamedBodyBytes == nil)
        #expect(limits.maxDecompressionRatio == 100)
        #expect(limits.maxSpoolBytes == 256 << 20)
        #expect(Client(baseURL: URL(fileURLWithPath: "/")).configuration.responseLimits == limits)
        #expect(TransferRequest(URLRequest(url: URL(fileURLWithPath: "/"))).responseLimits == limits)
    }

    @Test("A transport is handed the request's limits")
    func transferRequestCarriesLimits() async throws {
        let seen = LimitsRecorder()
        let mock = MockTransport { _ in Response(status: .ok) }
        let recording = RecordingTransport(base: mock, seen: seen)
        _ = try await Request {
            Url("http://127.0.0.1:9/x")
            Using(recording)
            MaxResponseSize(10)
            MaxResponseSize(streamed: 20)
        }.send()
        _ = try await Request {
            Url("http://127.0.0.1:9/x")
            Using(recording)
            ResponseLimits(maxDecompressionRatio: 7)
        }.stream()
        #expect(
            seen.limits == [
                ResponseLimits(maxBodyBytes: 10, maxStreamedBodyBytes: 20),
                ResponseLimits(maxDecompressionRatio: 7),
            ])
    }

    /// The query that paces an endless body for `transport`. FoundationNetworking cancels a task only once the work
    /// queue every session shares is free, and a loopback server sending as fast as the socket takes it keeps that
    /// queue busy (seconds in a debug build, many minutes under the thread sanitizer), stalling every other
    /// URLSession transfer in the process. A real server is held back by the network; here a 1 ms pause between
    /// 64 KiB blocks does the same.
    /// 64 KiB a millisecond: past any limit here within a fraction of a second, without a flood that starves the
    /// rest of a parallel (and thread-sanitized) test run.
    static func pace(_ transport: WireTransport) -> String { "&pause=1" }

    @Test(
        "An endless body sent to data() stops at the limit, chunked or delimited by close", arguments: WireTransport.all
    )
    func endlessBody(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        // A body delimited by the connection's end is HTTP/1.1's; over HTTP/2 every body is a stream's.
        for framing in transport.http2 == nil ? ["chunked", "close"] : ["chunked"] {
            let error = await Self.failure {
                try await Request {
                    Url(server.url("/hostile/endless?framing=\(framing)\(Self.pace(transport))"))
                    Using(transport.transport)
                    MaxResponseSize(4 << 20)
                }.data()
            }
            #expect(error?.kind == .responseTooLarge, "\(framing)")
            #expect(error?.detail == Self.tooLarge(4 << 20), "\(framing)")
            #expect(error?.statusCode == 200, "\(framing)")
            #expect(error?.responseHeaders?["Content-Type"] == "application/octet-stream", "\(framing)")
            #expect(error?.responseBody == Data(), "\(framing)")
        }
    }

    @Test("A gzip bomb sent to data() stops at the limit, with or without Content-Length", arguments: WireTransport.all)
    func gzipBombBuffered(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        for framing in ["length", "chunked"] {
            let error = await Self.failure {
                try await Request {
                    Url(server.url("/hostile/gzip-bomb?bytes=\(32 << 20)&framing=\(framing)"))
                    Using(transport.transport)
                    // The ratio guard would stop this bomb first; this test is about the byte limit.
                    ResponseLimits(maxBodyBytes: 8 << 20, maxDecompressionRatio: 1_000_000)
                }.data()
            }
            #expect(error?.kind == .responseTooLarge, "\(framing)")
            #expect(error?.detail == Self.tooLarge(8 << 20), "\(framing)")
            #expect(error?.statusCode == 200, "\(framing)")
            #expect(error?.responseHeaders?["Content-Encoding"] == "gzip", "\(framing)")
        }
    }

    @Test("A gzip bomb stops at 100 times the bytes sent, streamed or in memory", arguments: WireTransport.all)
    func gzipBombRatio(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let url = server.url("/hostile/gzip-bomb?bytes=\(16 << 20)")
        let streaming = try await Request {
            Url(url)
            Using(transport.transport)
        }.stream()
        let sent = try #require(streaming.head.headers["Content-Length"].flatMap { Int($0) })
        var received = 0
        let error = await Self.failure {
            for try await chunk in streaming { received += chunk.count }
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.detail == Self.expandsTooMuch)
        #expect(error?.statusCode == 200)
        #expect(error?.responseHeaders?["Content-Encoding"] == "gzip")
        #expect(error?.responseHeaders?["Content-Length"] == String(sent))
        #expect(received <= max(1 << 20, 100 * sent) + 256 * 1024)

        // In memory, the ratio is the tighter bound than 64 MiB.
        let buffered = await Self.failure {
            try await Request {
                Url(url)
                Using(transport.transport)
            }.data()
        }
        #expect(buffered?.kind == .responseTooLarge)
        #expect(buffered?.detail == Self.expandsTooMuch)
        #expect(buffered?.statusCode == 200)
        #expect(buffered?.responseHeaders?["Content-Encoding"] == "gzip")
    }

    @Test(
        "stream() and download(to:) move more than the buffered limit unless MaxResponseSize(streamed:) says otherwise",
        arguments: WireTransport.all)
    func streamedLimit(_ transport: WireTransport) async throws {
        let server = try transport.server()
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
        #expect(limited?.statusCode == 200)
        #expect(limited?.responseHeaders?["Content-Length"] == String(size))

        let file = try TemporaryFile(contents: Data("before".utf8))
        defer { file.remove() }
        try await Request {
            Url(server.url("/large/\(size)"))
            Using(transport.transport)
            MaxResponseSize(1 << 20)
        }.download(to: file.url)
        #expect(Self.size(of: file.url) == size)
        try Data("before".utf8).write(to: file.url)
        let download = await Self.failure {
            try await Request {
                Url(server.url("/large/\(size)"))
                Using(transport.transport)
                MaxResponseSize(streamed: 1 << 20)
            }.download(to: file.url)
        }
        #expect(download?.kind == .responseTooLarge)
        #expect(download?.detail == Self.tooLarge(1 << 20))
        #expect(download?.statusCode == 200)
        #expect(Self.size(of: file.url) == 6)
        #expect(file.directoryEntries == ["file.bin"])
    }

    @Test("collect(upTo:) past its limit is responseTooLarge", arguments: WireTransport.all)
    func collectLimit(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let error = await Self.failure {
            try await Request {
                Url(server.url("/bytes/2000"))
                Using(transport.transport)
            }.stream().collect(upTo: 1000)
        }
        #expect(error?.kind == .responseTooLarge)
        #expect(error?.detail == Self.tooLarge(1000))
        #expect(error?.statusCode == 200)
    }

    @Test("A custom transport's oversized body is refused by the pipeline, whether it sends or only streams")
    func customTransport() async throws {
        let mock = MockTransport { _ in Response(status: .ok, headers: ["X-Size": "11"], body: Data(count: 11)) }
        for transport in [mock, StreamOnlyTransport(base: mock)] as [any Transport] {
            let error = await Self.failure {
                try await Request {
                    Url("http://127.0.0.1:9/x")
                    Using(transport)
                    MaxResponseSize(10)
                }.data()
            }
            #expect(error?.kind == .responseTooLarge)
            #expect(error?.detail == Self.tooLarge(10))
            #expect(error?.statusCode == 200)
            #expect(error?.responseHeaders?["X-Size"] == "11")
            #expect(error?.responseBody == Data())
        }
    }

    @Test("A negative MaxResponseSize is a request problem")
    func negativeLimit() throws {
        let error = #expect(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:9/x")
                MaxResponseSize(-1)
            }.urlRequest()
        }
        #expect(error?.problems.map(\.message) == ["a response size limit must not be negative, not -1"])
    }
}

/// A transport that implements only `stream(_:)`, so `send` is the protocol's default.
private struct StreamOnlyTransport: Transport {
    let base: any Transport
    func stream(_ request: TransferRequest) async throws -> StreamingResponse { try await base.stream(request) }
}

/// Records the limits of each request a ``RecordingTransport`` is handed.
private final class LimitsRecorder: @unchecked Sendable {
    // Safe: `recorded` is only touched while holding `lock`.
    private let lock = NSLock()
    private var recorded: [ResponseLimits] = []
    var limits: [ResponseLimits] { lock.withLock { recorded } }
    func record(_ limits: ResponseLimits) { lock.withLock { recorded.append(limits) } }
}

private struct RecordingTransport: Transport {
    let base: any Transport
    let seen: LimitsRecorder
    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        seen.record(request.responseLimits)
        return try await base.stream(request)
    }
    func send(_ request: TransferRequest) async throws -> Response {
        seen.record(request.responseLimits)
        return try await base.send(request)
    }
}
