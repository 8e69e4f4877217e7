import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("Recording: streams, downloads, events, uploads and failures replay as they were recorded", .wallClock)
struct ReplayTransferTests {
    /// Records with a live server, stops it, and hands back a transport replaying the cassette.
    private static func recordThenReplay(
        _ folder: CassetteFolder, configuration: RecordingTransport.Configuration = .init(),
        _ body: (TestServer, RecordingTransport) async throws -> Void
    ) async throws -> (server: TestServer, player: RecordingTransport) {
        let server = try TestServer()
        try await body(server, try folder.transport("t.har", mode: .recordAll, configuration: configuration))
        await server.shutdown()
        // A stream the caller stopped reading is recorded when its pump notices, after the caller moved on.
        let cassette = folder.cassette("t.har")
        for _ in 0..<6_000 where !FileManager.default.fileExists(atPath: cassette.path) {
            try await Task.sleep(for: .milliseconds(10))
        }
        return (server, try folder.transport("t.har", mode: .replayOnly, configuration: configuration))
    }

    private static func chunks(_ url: URL, _ transport: any Transport) async throws -> [Data] {
        var chunks: [Data] = []
        for try await chunk in try await Request({
            Url(url); Using(transport)
        }).stream() { chunks.append(chunk) }
        return chunks
    }

    @Test("A streamed body replays in the chunks it arrived in")
    func streamedChunks() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        var live: [Data] = []
        var url = URL(fileURLWithPath: "/")
        let (_, player) = try await Self.recordThenReplay(folder) { server, recorder in
            url = server.url("/stream/3")
            live = try await Self.chunks(url, recorder)
        }
        #expect(live.reduce(0) { $0 + $1.count } > 0)
        #expect(try await Self.chunks(url, player) == live)
    }

    @Test("A download over the side-file threshold replays byte for byte from the side file")
    func downloadWithSideFile() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let expected = TestPayload.randomBytes(count: 100_000, seed: 7)
        var url = URL(fileURLWithPath: "/")
        let (_, player) = try await Self.recordThenReplay(folder) { server, recorder in
            url = server.url("/bytes/100000?seed=7")
            let file = folder.url.appendingPathComponent("live.bin")
            try await Request {
                Url(url); Using(recorder)
            }.download(to: file)
            #expect(try Data(contentsOf: file) == expected)
        }
        let sideFile = folder.url.appendingPathComponent("t.bodies/\(SHA256Digest.hex(of: expected)).bin")
        #expect(try Data(contentsOf: sideFile) == expected)
        let har = try String(contentsOf: folder.cassette("t.har"), encoding: .utf8)
        #expect(har.contains(#""_file" : "t.bodies/\#(SHA256Digest.hex(of: expected)).bin""#))
        let replayed = folder.url.appendingPathComponent("replayed.bin")
        let response = try await Request {
            Url(url); Using(player)
        }.download(to: replayed)
        #expect(response.statusCode == 200)
        #expect(try Data(contentsOf: replayed) == expected)
    }

    @Test("Server-sent events replay as the same events")
    func events() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        func firstThree(_ url: URL, _ transport: any Transport) async throws -> [String] {
            var received: [String] = []
            for try await event in Request({
                Url(url); Using(transport)
            }).events() {
                received.append("\(event.id ?? "") \(event.data)")
                if received.count == 3 { break }
            }
            return received
        }
        var url = URL(fileURLWithPath: "/")
        var live: [String] = []
        let (_, player) = try await Self.recordThenReplay(folder) { server, recorder in
            url = server.url("/sse?count=3")
            live = try await firstThree(url, recorder)
        }
        #expect(live == ["1 message 1", "2 message 2", "3 message 3"])
        #expect(try await firstThree(url, player) == ["1 message 1", "2 message 2", "3 message 3"])
    }

    @Test("A body sent from a file is recorded by digest and size, and a different file does not match")
    func fileUpload() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let upload = folder.url.appendingPathComponent("upload.bin")
        try Data(repeating: 0x41, count: 5000).write(to: upload)
        var url = URL(fileURLWithPath: "/")
        var live = ""
        let (_, player) = try await Self.recordThenReplay(folder) { server, recorder in
            url = server.url("/upload")
            live = try await Request {
                Url(url); Method(.post); Body(file: upload); Using(recorder)
            }.string()
        }
        let digest = SHA256Digest.hex(of: Data(repeating: 0x41, count: 5000))
        let har = try String(contentsOf: folder.cassette("t.har"), encoding: .utf8)
        #expect(har.contains(#""_sha256" : "sha256:\#(digest)""#))
        #expect(har.contains(#""_size" : 5000"#))
        #expect(!har.contains("AAAAAAAAAA"))
        #expect(
            try await Request {
                Url(url); Method(.post); Body(file: upload); Using(player)
            }.string() == live)
        try Data(repeating: 0x42, count: 5000).write(to: upload)
        let error = await #expect(throws: RequestError.self) {
            try await Request {
                Url(url); Method(.post); Body(file: upload); Using(player)
            }.string()
        }
        #expect(error?.detail?.contains("body: recorded a file of 5000 bytes, sha256:\(digest)") == true)
    }

    @Test("A refused connection replays as the same connection failure")
    func refusedConnection() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let refusing = try RefusingPort()
        let url = refusing.url("/refused")
        let recorder = try folder.transport("t.har", mode: .recordAll)
        let live = await #expect(throws: RequestError.self) {
            try await Request {
                Url(url); Using(recorder)
            }.send()
        }
        #expect(live?.connectionFailure == .connectionRefused)
        let player = try folder.transport("t.har", mode: .replayOnly, base: MockTransport())
        let replayed = await #expect(throws: RequestError.self) {
            try await Request {
                Url(url); Using(player)
            }.send()
        }
        #expect(replayed?.kind == live?.kind)
        #expect(replayed?.connectionFailure == .connectionRefused)
        #expect(replayed?.detail == live?.detail)
    }

    @Test("A streamed body that fails after the head replays its head, its bytes, then the same failure")
    func failureDuringBody() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        func read(_ url: URL, _ transport: any Transport) async -> (status: Int, bytes: Data, error: RequestError?) {
            var bytes = Data()
            var status = 0
            do {
                let streaming = try await Request {
                    Url(url); Using(transport)
                }.stream()
                status = streaming.head.statusCode
                for try await chunk in streaming { bytes.append(chunk) }
                return (status, bytes, nil)
            } catch {
                return (status, bytes, error as? RequestError)
            }
        }
        var url = URL(fileURLWithPath: "/")
        var live: (status: Int, bytes: Data, error: RequestError?) = (0, Data(), nil)
        let (_, player) = try await Self.recordThenReplay(folder) { server, recorder in
            url = server.url("/fault/truncate")
            live = await read(url, recorder)
        }
        #expect(live.status == 200)
        #expect(live.bytes == Data("0123456789".utf8))
        #expect(live.error?.kind == .transport)
        let replayed = await read(url, player)
        #expect(replayed.status == 200)
        #expect(replayed.bytes == live.bytes)
        #expect(replayed.error?.kind == live.error?.kind)
        #expect(replayed.error?.detail == live.error?.detail)
        let har = try String(contentsOf: folder.cassette("t.har"), encoding: .utf8)
        #expect(har.contains(#""duringBody" : true"#))
    }

    @Test("A whole body that fails replays as the same failure, without a head")
    func failureOfWholeBody() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        var url = URL(fileURLWithPath: "/")
        var live: RequestError?
        let (_, player) = try await Self.recordThenReplay(folder) { server, recorder in
            url = server.url("/fault/truncate")
            live = await #expect(throws: RequestError.self) {
                try await Request {
                    Url(url); Using(recorder)
                }.data()
            }
        }
        let replayed = await #expect(throws: RequestError.self) {
            try await Request {
                Url(url); Using(player)
            }.data()
        }
        #expect(live?.kind == .transport)
        #expect(replayed?.kind == live?.kind)
        #expect(replayed?.detail == live?.detail)
    }

    @Test("With a pacing clock, replayed chunks wait for their recorded times")
    func pacing() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let cassette = HARDocument(
            log: HARLog(
                version: "1.2", creator: HARCreator(name: "test", version: "1"),
                entries: [
                    HAREntry(
                        startedDateTime: "2026-01-01T00:00:00.000Z", time: 250,
                        request: HARRequest(
                            method: "GET", url: "http://api.test/ticks", httpVersion: "HTTP/1.1", cookies: [],
                            headers: [], queryString: [], headersSize: -1, bodySize: 0),
                        response: HARResponse(
                            status: 200, statusText: "OK", httpVersion: "HTTP/1.1", cookies: [], headers: [],
                            content: HARContent(size: 9, mimeType: "text/plain", text: "onetwosix"), redirectURL: "",
                            headersSize: -1, bodySize: 9,
                            chunks: [
                                HARChunk(size: 3, time: 0), HARChunk(size: 3, time: 100), HARChunk(size: 3, time: 250),
                            ]),
                        cache: HARCache(), timings: HARTimings(send: 0, wait: 0, receive: 250))
                ]))
        try cassette.encoded().write(to: folder.cassette("paced.har"))
        let clock = TestClock()
        let player = try folder.transport(
            "paced.har", mode: .replayOnly, configuration: .init(pacing: RequestClock(clock)))
        let url = try #require(URL(string: "http://api.test/ticks"))
        let reading = Task { try await Self.chunks(url, player) }
        #expect(await clock.advanceToNextSleeper() == .milliseconds(100))
        #expect(await clock.advanceToNextSleeper() == .milliseconds(150))
        let chunks = try await reading.value
        #expect(chunks.map { String(decoding: $0, as: UTF8.self) } == ["one", "two", "six"])
    }
}
