import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTesting
import Testing

@Suite("Recording in tests: the cassette trait and the scoped helper")
struct CassetteTraitTests {
    /// What the committed cassette `Cassettes/trait-todos.har` answers.
    static let todos = #"[{"id":1,"title":"write the cassette","done":true},{"id":2,"title":"replay it","done":false}]"#

    @Test(
        "The trait replays the cassette beside this file; the base transport, which has no answers, is never asked",
        .cassette("trait-todos", base: MockTransport()))
    func trait() async throws {
        let transport = try #require(RecordingTransport.current)
        #expect(
            transport.cassetteURL
                == RecordingTransport.cassetteFolder(for: #filePath).appendingPathComponent("trait-todos.har"))
        let todos = try await Request {
            Url("https://api.example.com/todos?page=1"); Header.Authorization(.bearer("a-real-token")); Using(transport)
        }.string()
        #expect(todos == Self.todos)
    }

    @Test("withCassette records into the folder given, replays the next time, and sets current only inside")
    func scopedHelper() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = MockTransport { _ in Response(status: .ok, body: Data("live".utf8)) }
        #expect(RecordingTransport.current == nil)
        for _ in 0..<2 {
            let body = try await RecordingTransport.withCassette(
                "scoped", mode: .recordOnce, folder: folder, base: base
            ) { transport in
                #expect(RecordingTransport.current === transport)
                return try await Request {
                    Url("http://api.test/value"); Using(transport)
                }.string()
            }
            #expect(body == "live")
        }
        #expect(base.requests.count == 1)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("scoped.har").path))
        #expect(RecordingTransport.current == nil)
    }
}
