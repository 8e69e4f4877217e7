import Foundation
import RequestKitClient
import RequestKitComposition
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitSending
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("A client's requests work with every way of sending", .wallClock)
struct ClientRequestTests {
    struct Stamp: Interceptor {
        func adapt(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            request.setValue("stamped", forHTTPHeaderField: "X-Stamp")
            return request
        }
    }

    struct Echo: Decodable, Equatable {
        let userName: String
    }

    private func client(_ server: TestServer, transport: WireTransport) -> Client {
        Client(baseURL: server.url("/api/")) { configuration in
            configuration.transport = transport.transport
            configuration.interceptors = [Stamp()]
            configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
            configuration.defaults = [Header.Any(key: "X-Default", value: "yes")]
        }
    }

    @Test(
        "stream, download, events and poll go through the client's base URL, defaults and interceptors",
        arguments: WireTransport.all)
    func everyVerb(transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/api/data") { _ in .text("line 1\nline 2\n") }
        server.route("/api/events") { _ in
            TestResponse(headers: [("Content-Type", "text/event-stream")], body: .data(Data("data: hello\n\n".utf8)))
        }
        let client = client(server, transport: transport)

        let streamed = try await client.request(Request { Path("data") }).stream()
        var lines: [String] = []
        for try await line in streamed.lines { lines.append(line) }
        #expect(lines == ["line 1", "line 2"])

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("client-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: file) }
        let head = try await client.request(Request { Path("data") }).download(to: file)
        #expect(head.statusCode == 200)
        #expect(try Data(contentsOf: file) == Data("line 1\nline 2\n".utf8))

        var events = client.request(Request { Path("events") }).events().makeAsyncIterator()
        #expect(try await events.next()?.data == "hello")

        for try await result in client.request(Request { Path("data") }).poll(every: .milliseconds(10)) {
            #expect(result.response?.statusCode == 200)
            break
        }

        let seen = server.requests.map { "\($0.path) \($0.header("X-Stamp") ?? "-") \($0.header("X-Default") ?? "-")" }
        #expect(
            seen.prefix(4) == [
                "/api/data stamped yes", "/api/data stamped yes", "/api/events stamped yes",
                "/api/data stamped yes",
            ])
    }

    @Test("decode on a client's request uses the client's decoder; an explicit decoder still wins")
    func decoder() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/api/me") { _ in .json(Data(#"{"user_name":"ada","userName":"plain"}"#.utf8)) }
        let client = client(server, transport: WireTransport.all[1])
        #expect(try await client.request(Request { Path("me") }).decode(Echo.self) == Echo(userName: "ada"))
        #expect(try await client.decode(Request { Path("me") }, as: Echo.self) == Echo(userName: "ada"))
        #expect(
            try await client.request(Request { Path("me") }).decode(Echo.self, decoder: JSONDecoder())
                == Echo(userName: "plain"))
        #expect(try await client.request(AnyRequest<Echo> { Path("me") }).value() == Echo(userName: "ada"))
    }

    @Test("Groups and chains of a client's requests use the client")
    func groupsAndChains() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/api/a") { _ in .text("a") }
        server.route("/api/b") { _ in .text("b") }
        let client = client(server, transport: WireTransport.all[1])
        let results = try await RequestGroup {
            client.request(Request { Path("a") })
            client.request(Request { Path("b") })
        }.send()
        #expect(try results.map { try $0.get().body } == [Data("a".utf8), Data("b".utf8)])
        #expect(Set(server.requests.map { $0.header("X-Stamp") ?? "-" }) == ["stamped"])
    }
}
