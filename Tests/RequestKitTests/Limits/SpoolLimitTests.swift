import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
@Suite("The URLSession streaming spool on Linux", .wallClock)
struct SpoolLimitTests {
    /// Names of spool files visible in the temporary directory.
    static func spoolFiles() -> [String] {
        let names = try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
        return (names ?? []).filter { $0.hasPrefix("requestkit-spool-") }
    }

    @Test("A consumer that lags more than maxSpoolBytes fails the stream; the spool file never has a name")
    func bounded() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let streaming = try await Request {
            Url(server.url("/large/\(32 << 20)"))
            Using(URLSessionTransport.shared)
            ResponseLimits(maxSpoolBytes: 2 << 20)
        }.stream(bufferLimit: 64 * 1024)
        var iterator = streaming.makeAsyncIterator()
        _ = try await iterator.next()
        try await Task.sleep(for: .milliseconds(300))
        #expect(Self.spoolFiles().isEmpty)
        var received = 0
        do {
            while let chunk = try await iterator.next() { received += chunk.count }
            Issue.record("the stream ended after \(received) bytes")
        } catch let error as RequestError {
            #expect(error.kind == .responseTooLarge)
            #expect(error.detail == "the stream's consumer fell more than the spool limit of 2097152 bytes behind")
            #expect(error.statusCode == 200)
            #expect(error.responseHeaders?["Content-Length"] == String(32 << 20))
            #expect(error.responseBody == Data())
        }
        #expect(received < 8 << 20)
    }
}
#endif
