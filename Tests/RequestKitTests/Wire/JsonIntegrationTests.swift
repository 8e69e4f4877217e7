import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Json in requests and responses", .wallClock)
struct JsonIntegrationTests {
    @Test("A JSON literal body is sent compactly, keys in order", arguments: WireTransport.withTLS)
    func literalBody(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let echo = try await Request {
            Url(server.url("/anything"))
            Using(transport.transport)
            Method(.post)
            Body(json: ["title": "foo", "userId": 1, "tags": ["a"], "draft": nil])
        }.json()
        let received = try #require(server.requests.last)
        #expect(received.body == Data(#"{"title":"foo","userId":1,"tags":["a"],"draft":null}"#.utf8))
        #expect(received.header("Content-Type") == "application/json")
        #expect(echo.method.string == "POST")
        #expect(echo.bodyLength.int == 52)
    }

    @Test("onJson receives the parsed body; a body that is not JSON reaches onError", arguments: WireTransport.withTLS)
    func onJson(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/not-json") { _ in .text("plain words") }
        let log = Log()
        await Request {
            Url(server.url("/anything?x=1"))
            Using(transport.transport)
        }
        .onJson { log.add("json \($0.args.x.string ?? "?")") }
        .onError { log.add("error \($0.kind)") }
        .call().wait()
        await Request {
            Url(server.url("/not-json"))
            Using(transport.transport)
        }
        .onJson { _ in log.add("json") }
        .onError { log.add("error \($0.kind) \($0.underlyingError is JsonParsingError)") }
        .call().wait()
        #expect(log.entries == ["json 1", "error decoding true"])
    }

    @Test("An error response's body is readable as Json", arguments: WireTransport.withTLS)
    func errorJson(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/bearer"))
                Using(transport.transport)
            }.json()
        }
        #expect(error.statusCode == 401)
        #expect(error.errorJson?.authenticated.bool == false)
    }
}
