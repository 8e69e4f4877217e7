import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Transfers through the client features", .wallClock)
struct TransferInterceptorTests {
    /// Adds a fixed header to every attempt.
    private struct Stamp: Interceptor {
        func adapt(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            request.setValue("stamped", forHTTPHeaderField: "X-Stamp")
            return request
        }
    }

    @Test("Interceptors adapt streamed requests, file uploads and downloads")
    func interceptorsApply() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let file = try TemporaryFile(contents: Data("payload".utf8))
        defer { file.remove() }

        let streaming = try await Request {
            Url(server.url("/stream/1"))
            Intercept(Stamp())
        }.stream()
        for try await _ in streaming {}
        _ = try await Request {
            Url(server.url("/upload"))
            Method(.post)
            Body(file: file.url)
            Intercept(Stamp())
        }.data()
        try await Request {
            Url(server.url("/bytes/10"))
            Intercept(Stamp())
        }.download(to: file.directory.appendingPathComponent("download.bin"))

        #expect(server.requests.map(\.path) == ["/stream/1", "/upload", "/bytes/10"])
        #expect(server.requests.map { $0.header("X-Stamp") } == ["stamped", "stamped", "stamped"])
    }
}
