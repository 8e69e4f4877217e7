import Foundation
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

@Suite("TestServer with URLSession", .wallClock)
struct TestServerURLSessionTests {
    private func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 20
        return URLSession(configuration: configuration)
    }

    @Test("URLSession reads echoes, follows redirect chains and decodes chunked streams")
    func interoperates() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = makeSession()
        defer { session.invalidateAndCancel() }

        var request = URLRequest(url: server.url("/post?a=1"))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"x":1}"#.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (echo, echoResponse) = try await session.data(for: request)
        #expect((echoResponse as? HTTPURLResponse)?.statusCode == 200)
        let text = String(decoding: echo, as: UTF8.self)
        #expect(text.contains(#""body":"{\"x\":1}""#))
        #expect(text.contains(#""args":{"a":"1"}"#))

        let (redirected, redirectResponse) = try await session.data(from: server.url("/redirect/3"))
        #expect(redirectResponse.url?.path == "/get")
        #expect(String(decoding: redirected, as: UTF8.self).contains(#""path":"/get""#))
        #expect(server.requests.suffix(4).map(\.path) == ["/redirect/3", "/redirect/2", "/redirect/1", "/get"])

        let (lines, _) = try await session.data(from: server.url("/stream/5"))
        #expect(String(decoding: lines, as: UTF8.self).split(separator: "\n").count == 5)

        let (large, _) = try await session.data(from: server.url("/large/300000"))
        #expect(large == TestPayload.largeBody(count: 300_000))
    }

    @Test("Cancelling a URLSession task during /delay is seen by the server as an aborted request")
    func cancellationIsObservable() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let session = makeSession()
        defer { session.invalidateAndCancel() }
        let task = Task { try await session.data(from: server.url("/delay/300")) }
        #expect(await server.waitUntil { $0.requestCount == 1 })
        task.cancel()
        _ = await task.result
        #expect(await server.waitUntil { $0.abortedRequests == 1 })
        #expect(await server.waitUntil { $0.activeRequests == 0 })
    }
}
