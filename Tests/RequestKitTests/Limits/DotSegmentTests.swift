import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Dot segments in paths", .wallClock)
struct DotSegmentTests {
    @Test("`.` and `..` values are encoded, so a segment stays a segment")
    func encoded() throws {
        let url = try Request {
            Url("http://h/api"); Path("files", "..", "admin", ".", "a.b", "...")
        }.urlRequest().url
        #expect(url?.absoluteString == "http://h/api/files/%2E%2E/admin/%2E/a.b/...")
        let templated = try Request {
            Url("http://h/api")
            Path(template: "/files/{name}/{a}{b}/../x", ["name": "..", "a": ".", "b": "."])
        }.urlRequest().url
        #expect(templated?.absoluteString == "http://h/api/files/%2E%2E/%2E%2E/../x")
    }

    @Test("The server receives `%2E%2E` literally, on both transports", arguments: WireTransport.all)
    func onTheWire(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/anything"))
            Using(transport.transport)
            Path("files", "..", "admin")
        }.send()
        #expect(response.statusCode == 200)
        #expect(server.requests.last?.target == "/anything/files/%2E%2E/admin")
    }
}
