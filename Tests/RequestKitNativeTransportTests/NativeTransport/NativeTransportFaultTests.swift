import Foundation
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTesting
import Testing

@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

@Suite("NativeTransport: faulty servers", .wallClock)
struct NativeTransportFaultTests {
    /// The error of a request to `path`; the timeout only bounds a hang (the faults answer at once), so it is long
    /// enough for a machine loaded by the thread sanitizer, where two-second stalls of the whole process were seen.
    private func failure(_ path: String) async throws -> RequestError {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url(path))
        request.timeoutInterval = 30
        return try await #require(throws: RequestError.self) { try await NativeTransport().send(request) }
    }

    @Test("A final response sent before the request body was read is returned, sent whole or streamed")
    func earlyResponse() async throws {
        let answer = "HTTP/1.1 413 Content Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!"
        let server = try LingeringCloseServer(earlyAnswer: answer)
        defer { server.stop() }
        let transport = NativeTransport()
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/upload"))
        let body = Data(repeating: 0x61, count: 4 << 20)
        for streamed in [false, true] {
            let response = try await Request {
                Url(url)
                Method(.post)
                Body(body)
                Timeout(120)
                Using(transport)
                if streamed { UploadProgress { _ in } }
            }.send()
            #expect(response.statusCode == 413, "streamed: \(streamed)")
            #expect(response.body == Data("too big!".utf8), "streamed: \(streamed)")
        }
        #expect(server.acceptedConnections == 2)
        #expect(transport.idleConnectionCount == 0)
    }

    @Test("A connection closed before any response is a transport failure")
    func closed() async throws {
        let error = try await failure("/fault/close")
        #expect(error.kind == .transport)
        #expect(error.connectionFailure == .connectionReset)
        #expect(error.detail?.hasSuffix("was reset (the server closed the connection before a response)") == true)
    }

    @Test(
        "Malformed responses are typed parse errors",
        arguments: [
            ("/fault/truncate", HTTP1ParseError.truncatedBody),
            ("/fault/malformed-status", .invalidStatusLine),
            ("/fault/bad-chunk", .invalidChunkSize),
            ("/fault/huge-headers", .headTooLarge),
            ("/fault/huge-chunk", .chunkSizeTooLarge),
            ("/fault/garbage", .invalidStatusLine),
        ])
    func malformed(_ path: String, _ expected: HTTP1ParseError) async throws {
        let error = try await failure(path)
        #expect(error.kind == .transport)
        #expect(error.underlyingError as? HTTP1ParseError == expected)
        #expect(error.detail == expected.reason)
    }

    @Test(
        "A server that stops sending times out after the idle timeout", arguments: ["/fault/hang", "/fault/hang-body"])
    func hangs(_ path: String) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        // A kept-alive connection first: the half second then bounds the wait for data, never a connect that a busy
        // machine can make that slow.
        #expect(try await transport.send(URLRequest(url: server.url("/get"))).statusCode == 200)
        var request = URLRequest(url: server.url(path))
        request.timeoutInterval = 0.5
        let clock = ContinuousClock()
        let start = clock.now
        let error = try await #require(throws: RequestError.self) { try await transport.send(request) }
        #expect(server.stats.totalConnections == 1)
        #expect(error.kind == .timedOut)
        #expect(error.detail == "no data for 0.5 s")
        #expect(clock.now - start >= .milliseconds(450))
        #expect(clock.now - start < .seconds(90))
    }

    @Test("Bytes after a Content-Length body are not taken as the next response: the connection is not reused")
    func shortLength() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        let response = try await transport.send(URLRequest(url: server.url("/fault/short-length")))
        #expect(response.body == Data("01234".utf8))
        #expect(transport.idleConnectionCount == 0)
    }

    @Test("Conflicting Content-Length values are refused")
    func conflictingLengths() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/two-lengths") { _ in
            TestResponse(
                body: .raw {
                    try $0.writeRaw(Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc".utf8))
                })
        }
        let error = try await #require(throws: RequestError.self) {
            try await NativeTransport().send(URLRequest(url: server.url("/two-lengths")))
        }
        #expect(error.underlyingError as? HTTP1ParseError == .conflictingContentLength)
    }
}

// Linux drops SYNs to a listener whose accept queue is full, which makes a connection attempt hang.
#if os(Linux)
@Suite("NativeTransport: connect timeout", .wallClock)
struct NativeTransportConnectTimeoutTests {
    @Test("A server that never completes the handshake fails the request with the connect timeout")
    func connectTimeout() async throws {
        let listener = try FullBacklogListener()
        defer { listener.close() }
        let transport = NativeTransport { $0.connectTimeout = 0.3 }
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/"))
        let clock = ContinuousClock()
        let start = clock.now
        let error = try await #require(throws: RequestError.self) { try await transport.send(URLRequest(url: url)) }
        #expect(error.kind == .timedOut)
        #expect(error.detail == "could not connect to 127.0.0.1 port \(listener.port) within 0.3 s")
        #expect(clock.now - start >= .milliseconds(250))
        #expect(clock.now - start < .seconds(90))
    }
}
#endif
