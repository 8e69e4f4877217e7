import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

@Suite("Recording: a workflow recorded against a live server replays with the server stopped", .wallClock)
struct ReplayWorkflowTests {
    /// A server with a login, a list, details and a job that is done at the third look.
    private static func makeServer() throws -> TestServer {
        let server = try TestServer()
        let looks = Locked(0)
        server.route("/login", method: "POST") { request in
            guard request.bodyText?.contains(#""password":"s3cret-pass""#) == true else { return .status(401) }
            return .json(Data(#"{"token":"tok-live-98765"}"#.utf8))
        }
        server.route("/items", method: "GET") { request in
            guard request.header("Authorization") == "Bearer tok-live-98765" else { return .status(401) }
            return .json(Data(#"[{"id":1,"name":"first"},{"id":2,"name":"second"}]"#.utf8))
        }
        server.route("/items/{id}", method: "GET") { request in
            let id = request.pathParameters["id"] ?? ""
            return .json(Data(#"{"id":\#(id),"job":"job-\#(id)","size":"\#(String(repeating: "x", count: 40))"}"#.utf8))
        }
        server.route("/jobs/{id}", method: "GET") { _ in
            let look = looks.withLock { value -> Int in
                value += 1
                return value
            }
            return .json(Data((look < 3 ? #"{"state":"running"}"# : #"{"state":"done","result":42}"#).utf8))
        }
        return server
    }

    /// Logs in, lists, reads the first item's details and polls its job until done; returns every body received.
    private static func runWorkflow(base: URL, transport: any Transport) async throws -> [String] {
        var bodies: [String] = []
        let login = try await Request {
            Url(base.appendingPathComponent("login")); Method(.post); Using(transport)
            Body(["user": "ada", "password": "s3cret-pass"])
        }.json()
        bodies.append(login.serializedString())
        let token = login.token.string ?? ""
        let list = try await Request {
            Url(base.appendingPathComponent("items")); Header.Authorization(.bearer(token)); Using(transport)
        }.string()
        bodies.append(list)
        let details = try await Request {
            Url(base.appendingPathComponent("items/1")); Header.Authorization(.bearer(token)); Using(transport)
        }.json()
        bodies.append(details.serializedString())
        let job = details.job.string ?? ""
        let status = Request {
            Url(base.appendingPathComponent("jobs/\(job)")); Using(transport)
        }
        for await result in status.poll(every: .milliseconds(10), until: { (try? $0.json().state.string) == "done" }) {
            guard case .changed(let response) = result else { continue }
            bodies.append(String(decoding: response.body, as: UTF8.self))
        }
        return bodies
    }

    @Test("login, token, list, details and polling replay byte for byte once the server is gone")
    func workflow() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let server = try Self.makeServer()
        let base = server.baseURL
        let recorder = try folder.transport("workflow.har", mode: .recordOnce)
        let recorded = try await Self.runWorkflow(base: base, transport: recorder)
        #expect(
            recorded == [
                #"{"token":"tok-live-98765"}"#,
                #"[{"id":1,"name":"first"},{"id":2,"name":"second"}]"#,
                #"{"id":1,"job":"job-1","size":"\#(String(repeating: "x", count: 40))"}"#,
                #"{"state":"running"}"#, #"{"state":"running"}"#, #"{"state":"done","result":42}"#,
            ])
        #expect(server.requests.count == 6)
        await server.shutdown()

        let player = try folder.transport("workflow.har", mode: .recordOnce)
        #expect(player.mode == .recordOnce)
        let replayed = try await Self.runWorkflow(base: base, transport: player)
        // The token never reached the disk: it replays as the placeholder, and everything else byte for byte.
        #expect(replayed.first == #"{"token":"<redacted>"}"#)
        #expect(Array(replayed.dropFirst()) == Array(recorded.dropFirst()))
        #expect(try !folder.allText().contains("tok-live-98765"))
        #expect(try !folder.allText().contains("s3cret-pass"))
    }

    @Test("A fourth look at the job fails: the cassette holds three answers and does not mark the last as repeating")
    func exhaustedPolling() async throws {
        let folder = try CassetteFolder()
        defer { folder.remove() }
        let server = try Self.makeServer()
        let base = server.baseURL
        _ = try await Self.runWorkflow(base: base, transport: try folder.transport("workflow.har", mode: .recordAll))
        await server.shutdown()

        let player = try folder.transport("workflow.har", mode: .replayOnly)
        let job = Request {
            Url(base.appendingPathComponent("jobs/job-1")); Using(player)
        }
        #expect(try await job.string() == #"{"state":"running"}"#)
        #expect(try await job.string() == #"{"state":"running"}"#)
        #expect(try await job.string() == #"{"state":"done","result":42}"#)
        let error = await #expect(throws: RequestError.self) { try await job.string() }
        #expect(error?.kind == .transport)
        #expect(
            error?.detail
                == "RecordingTransport: GET \(base.appendingPathComponent("jobs/job-1").absoluteString) was sent 4 "
                + "times, but workflow.har "
                + "records 3 answers to it (set \"_repeat\": true on entry 6 to repeat the last one)")
    }
}
