import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel
import Testing

@testable import RequestKitTesting

@Suite("Recording modes: what reaches the network and what reaches the cassette")
struct RecordingModeTests {
    /// A base transport answering each path with its own name.
    private static func makeBase() -> MockTransport {
        MockTransport { request in
            Response(
                status: .ok, headers: ["Content-Type": "text/plain"], body: Data("live \(request.url?.path ?? "")".utf8)
            )
        }
    }

    private static func get(_ path: String, _ transport: any Transport) async throws -> String {
        try await Request {
            Url("http://api.test\(path)"); Using(transport)
        }.string()
    }

    private static func recordedPaths(_ url: URL) throws -> [String] {
        let json = try Json(parsing: Data(contentsOf: url))
        return (json["log"]["entries"].array ?? []).compactMap { $0.request.url.string }
    }

    @Test("recordOnce records when the cassette is missing, then replays without the network")
    func recordOnce() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = Self.makeBase()
        #expect(try await Self.get("/a", folder.transport("once.har", mode: .recordOnce, base: base)) == "live /a")
        #expect(base.requests.count == 1)
        #expect(try await Self.get("/a", folder.transport("once.har", mode: .recordOnce, base: base)) == "live /a")
        #expect(base.requests.count == 1)
        #expect(try Self.recordedPaths(folder.cassette("once.har")) == ["http://api.test/a"])
    }

    @Test("recordNew replays what matches and records the rest, after what was there")
    func recordNew() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = Self.makeBase()
        _ = try await Self.get("/a", folder.transport("new.har", mode: .recordAll, base: base))
        let transport = try folder.transport("new.har", mode: .recordNew, base: base)
        #expect(try await Self.get("/a", transport) == "live /a")
        #expect(try await Self.get("/b", transport) == "live /b")
        #expect(base.requests.map { $0.url?.path } == ["/a", "/b"])
        #expect(try Self.recordedPaths(folder.cassette("new.har")) == ["http://api.test/a", "http://api.test/b"])
    }

    @Test("recordAll sends everything and replaces the cassette; passthrough writes nothing")
    func recordAllAndPassthrough() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = Self.makeBase()
        _ = try await Self.get("/a", folder.transport("all.har", mode: .recordAll, base: base))
        _ = try await Self.get("/b", folder.transport("all.har", mode: .recordAll, base: base))
        #expect(try Self.recordedPaths(folder.cassette("all.har")) == ["http://api.test/b"])
        _ = try await Self.get("/c", folder.transport("none.har", mode: .passthrough, base: base))
        #expect(base.requests.count == 3)
        #expect(!FileManager.default.fileExists(atPath: folder.cassette("none.har").path))
    }

    @Test("replayOnly without a cassette fails at once, saying how to record it")
    func replayOnlyWithoutCassette() throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let error = #expect(throws: RequestError.self) { try folder.transport("missing.har", mode: .replayOnly) }
        #expect(
            error?.detail
                == "the cassette \(folder.cassette("missing.har").path) does not exist; record it with mode "
                + ".recordOnce, or run with REQUESTKIT_RECORD_MODE=recordOnce")
    }

    @Test("An unmatched request names itself, the closest recorded request and every difference")
    func mismatch() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = Self.makeBase()
        let recorder = try folder.transport("m.har", mode: .recordAll, base: base)
        _ = try await Self.get("/items?page=1&sort=name", recorder)
        _ = try await Self.get("/users", recorder)
        let player = try folder.transport("m.har", mode: .replayOnly, base: base)
        #expect(try await Self.get("/items?sort=name&page=1", player) == "live /items")
        let error = await #expect(throws: RequestError.self) { try await Self.get("/items?page=2&sort=name", player) }
        #expect(
            error?.detail == """
                RecordingTransport: m.har records no request matching GET http://api.test/items?page=2&sort=name; \
                the closest is entry 1, GET http://api.test/items?page=1&sort=name:
                  - query: recorded page=1&sort=name, sent page=2&sort=name
                """)
        #expect(base.requests.count == 2)
    }

    @Test("REQUESTKIT_RECORD_MODE overrides the mode in code; a name that is no mode is an error")
    func environmentOverride() throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let overridden = try RecordingTransport(
            cassette: folder.cassette("e.har"), mode: .replayOnly, base: Self.makeBase(), configuration: .init(),
            environment: ["REQUESTKIT_RECORD_MODE": "RecordAll"])
        #expect(overridden.mode == .recordAll)
        let error = #expect(throws: RequestError.self) {
            try RecordingTransport(
                cassette: folder.cassette("e.har"), mode: .replayOnly, base: Self.makeBase(), configuration: .init(),
                environment: ["REQUESTKIT_RECORD_MODE": "record"])
        }
        #expect(
            error?.detail
                == "REQUESTKIT_RECORD_MODE=record names no recording mode; use one of replayOnly, recordOnce, "
                + "recordNew, recordAll, passthrough")
        #expect(RecordingMode("passthrough") == .passthrough)
        #expect(RecordingMode.recordNew.description == "recordNew")
    }
    @Test("The closest recorded request is the one nearest by path: /items/99 is told of /items/5, not /items")
    func closestByPath() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let base = Self.makeBase()
        let recorder = try folder.transport("c.har", mode: .recordAll, base: base)
        for path in ["/items", "/users/99", "/items/5", "/items/5/parts"] { _ = try await Self.get(path, recorder) }
        let player = try folder.transport("c.har", mode: .replayOnly, base: base)
        let error = await #expect(throws: RequestError.self) { try await Self.get("/items/99", player) }
        #expect(
            error?.detail == """
                RecordingTransport: c.har records no request matching GET http://api.test/items/99; \
                the closest is entry 3, GET http://api.test/items/5:
                  - path: recorded /items/5, sent /items/99
                """)
        let other = await #expect(throws: RequestError.self) { try await Self.get("/users/7", player) }
        #expect(other?.detail?.contains("the closest is entry 2, GET http://api.test/users/99:") == true)
        #expect(base.requests.count == 4)
    }

}
