import Foundation
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(
    "NativeTransport: file descriptors", .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp")), .wallClock)
struct NativeTransportDescriptorTests {
    @Test("Successes, failures, timeouts and cancellations leave no socket open once the pool is closed")
    func noLeaks() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport()
        for path in ["/get", "/fault/close", "/fault/truncate", "/fault/bad-chunk", "/chunked?chunks=3&size=4"] {
            _ = try? await transport.send(URLRequest(url: server.url(path)))
        }
        var hang = URLRequest(url: server.url("/fault/hang"))
        hang.timeoutInterval = 0.2
        _ = try? await transport.send(hang)
        let cancelled = Task { try await transport.send(URLRequest(url: server.url("/delay/300"))) }
        #expect(await server.waitForRequests(count: 4, timeout: .seconds(120)))
        cancelled.cancel()
        _ = await cancelled.result
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await transport.send(URLRequest(url: server.url("/get"))) } }
            try await group.waitForAll()
        }
        #expect(socketsConnected(toPort: server.port) > 0)
        transport.closeIdleConnections()
        var open = -1
        for _ in 0..<100 where open != 0 {
            open = socketsConnected(toPort: server.port)
            if open != 0 { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        #expect(open == 0)
    }
}
