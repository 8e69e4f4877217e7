import Foundation
import RequestKit
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("Downloads to a file", .wallClock)
struct DownloadTests {
    @Test("download(to:) writes the exact body and reports progress up to Content-Length")
    func download() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let folder = try TemporaryFile(contents: Data("old".utf8), name: "target.bin")
        defer { folder.remove() }
        let total = 3 * 1024 * 1024 + 5
        let progress = ProgressLog()
        let response = try await Request { Url(server.url("/large/\(total)")) }
            .download(to: folder.url) { progress.append($0) }
        #expect(response.statusCode == 200)
        #expect(response.body.isEmpty)
        #expect(try Data(contentsOf: folder.url) == TestPayload.largeBody(count: total))
        let values = progress.values
        #expect(values.allSatisfy { $0.totalBytes == Int64(total) })
        #expect(values.map(\.completedBytes) == values.map(\.completedBytes).sorted())
        #expect(values.last == TransferProgress(completedBytes: Int64(total), totalBytes: Int64(total)))
        #expect(folder.directoryEntries == ["target.bin"])
    }

    @Test(
        "A connection closed mid-body leaves the destination unchanged and no temporary file",
        arguments: WireTransport.withTLS)
    func interrupted(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/cut") { _ in
            TestResponse.stepped(headers: [("Content-Length", "1000000")]) {
                AnyIterator(
                    [BodyStep.write(Data(repeating: 7, count: 300_000)), .pause(.milliseconds(50)), .close]
                        .makeIterator())
            }
        }
        let folder = try TemporaryFile(contents: Data("previous contents".utf8), name: "keep.bin")
        defer { folder.remove() }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/cut"))
                Using(transport.transport)
            }.download(to: folder.url)
        }
        #expect(error.kind == .transport)
        #expect(try Data(contentsOf: folder.url) == Data("previous contents".utf8))
        #expect(folder.directoryEntries == ["keep.bin"])

        let absent = folder.directory.appendingPathComponent("new.bin")
        _ = try? await Request {
            Url(server.url("/cut"))
            Using(transport.transport)
        }.download(to: absent)
        #expect(!FileManager.default.fileExists(atPath: absent.path))
        #expect(folder.directoryEntries == ["keep.bin"])
    }

    @Test("An unacceptable status writes nothing", arguments: WireTransport.withTLS)
    func unacceptableStatus(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let folder = try TemporaryFile(contents: Data(), name: "placeholder")
        defer { folder.remove() }
        let destination = folder.directory.appendingPathComponent("missing.bin")
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/status/404"))
                Using(transport.transport)
            }.download(to: destination)
        }
        #expect(error.statusCode == 404)
        #expect(folder.directoryEntries == ["placeholder"])
    }

    @Test("downloadTransfer reports progress as an AsyncSequence ending at the total", arguments: WireTransport.withTLS)
    func progressSequence(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let folder = try TemporaryFile(contents: Data(), name: "placeholder")
        defer { folder.remove() }
        let destination = folder.directory.appendingPathComponent("download.bin")
        let transfer = Request {
            Url(server.url("/large/1048576"))
            Using(transport.transport)
        }.downloadTransfer(to: destination)
        var values: [TransferProgress] = []
        for await progress in transfer.progress { values.append(progress) }
        _ = try await transfer.value
        #expect(values.last == TransferProgress(completedBytes: 1_048_576, totalBytes: 1_048_576))
        #expect(values.last?.fractionCompleted == 1)
        #expect(try Data(contentsOf: destination).count == 1_048_576)
    }

    @Test("DownloadProgress reports a buffered data() call", arguments: WireTransport.withTLS)
    func downloadProgressComponent(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let progress = ProgressLog()
        let data = try await Request {
            Url(server.url("/large/200000"))
            Using(transport.transport)
            DownloadProgress { progress.append($0) }
        }.data()
        #expect(data == TestPayload.largeBody(count: 200_000))
        #expect(progress.values.last == TransferProgress(completedBytes: 200_000, totalBytes: 200_000))
    }

    @Test("uploadTransfer reports the upload as an AsyncSequence", arguments: WireTransport.withTLS)
    func uploadSequence(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let file = try TemporaryFile(contents: TestPayload.randomBytes(count: 500_000, seed: 3))
        defer { file.remove() }
        let transfer = Request {
            Url(server.url("/upload"))
            Using(transport.transport)
            Method(.post)
            Body(file: file.url)
        }.uploadTransfer()
        var values: [TransferProgress] = []
        for await progress in transfer.progress { values.append(progress) }
        let response = try await transfer.value
        #expect(try response.json()["bytes"].int == 500_000)
        #expect(values.last == TransferProgress(completedBytes: 500_000, totalBytes: 500_000))
    }
}
