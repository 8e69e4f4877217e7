import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Uploads", .wallClock)
struct UploadTests {
    @Test("Body(file:) streams the file, and the server gets every byte", arguments: WireTransport.withTLS)
    func fileBody(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let contents = try await offThePool { TestPayload.randomBytes(count: 3 * 1024 * 1024 + 17, seed: 42) }
        let file = try TemporaryFile(contents: contents)
        defer { file.remove() }
        let progress = ProgressLog()
        let json = try await Request {
            Url(server.url("/upload"))
            Using(transport.transport)
            Method(.put)
            Body(file: file.url)
            UploadProgress { progress.append($0) }
        }.json()
        #expect(json["bytes"].int == contents.count)
        #expect(json["sha256"].string == (try await offThePool { SHA256Digest.hex(of: contents) }))
        let received = try #require(server.requests.last)
        #if canImport(FoundationNetworking)
        // FoundationNetworking streams a file body with chunked coding; NativeTransport sends its length.
        let isChunked = transport.transport is URLSessionTransport
        #else
        let isChunked = false
        #endif
        if isChunked {
            #expect(received.header("Transfer-Encoding") == "chunked")
        } else {
            #expect(received.header("Content-Length") == String(contents.count))
        }
        #expect(received.header("Content-Type") == "application/octet-stream")
        let values = progress.values
        #expect(
            values.last == TransferProgress(completedBytes: Int64(contents.count), totalBytes: Int64(contents.count)))
        #expect(values.map(\.completedBytes) == values.map(\.completedBytes).sorted())
        #expect(values.count > 1)
    }

    @Test("An in-memory body with UploadProgress reports its whole length once", arguments: WireTransport.withTLS)
    func dataBodyProgress(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let progress = ProgressLog()
        _ = try await Request {
            Url(server.url("/upload"))
            Using(transport.transport)
            Method(.post)
            Body(Data("twelve bytes".utf8))
            UploadProgress { progress.append($0) }
        }.data()
        #expect(progress.values == [TransferProgress(completedBytes: 12, totalBytes: 12)])
    }

    @Test("A missing file is an invalid request naming the file")
    func missingFile() throws {
        let url = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)")
        let error = try #require(throws: RequestError.self) {
            try Request {
                Url("http://127.0.0.1:1/upload")
                Method(.post)
                Body(file: url)
            }.urlRequest()
        }
        #expect(error.problems.first?.message == "the body file \"\(url.path)\" does not exist or cannot be read")
    }
}

/// Collects progress values from any thread.
final class ProgressLog: @unchecked Sendable {
    // Safe: `entries` is only touched while holding `lock`.
    private let lock = NSLock()
    private var entries: [TransferProgress] = []

    func append(_ progress: TransferProgress) {
        lock.withLock { entries.append(progress) }
    }

    var values: [TransferProgress] { lock.withLock { entries } }
}
