import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Connection failures read the same on both transports", .wallClock)
struct ConnectionFailureTests {
    @Test("A refused connection names the host and port", arguments: WireTransport.all)
    func refused(_ wire: WireTransport) async throws {
        let down = try RefusingPort()
        let url = down.url("/anything")
        let port = down.port
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(url); Using(wire.transport)
            }.send()
        }
        #expect(error.kind == .transport)
        #expect(error.connectionFailure == .connectionRefused)
        #expect(error.description == "Connection refused by 127.0.0.1 port \(port) for GET \(url.absoluteString)")
        #expect((error as any Error).localizedDescription == error.description)
    }

    @Test(
        "A connection closed before any response is a reset naming the host and port", arguments: WireTransport.withTLS)
    func reset(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let url = server.url("/fault/close")
        let port = try #require(url.port)
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(url); Method(.post); Using(wire.transport)
            }.send()
        }
        #expect(error.connectionFailure == .connectionReset)
        #expect(
            error.description
                == "The connection to 127.0.0.1 port \(port) was reset (the server closed the connection before a "
                + "response) for POST \(url.absoluteString)")
    }

    @Test("Error.requestError reads a RequestError without a cast, and is nil for other errors")
    func errorAccessor() async throws {
        let transport = MockTransport { _ in Response(status: .notFound, body: Data("gone".utf8)) }
        do {
            _ = try await Request {
                Url("http://127.0.0.1:8080/todos/1"); Using(transport)
            }.data()
            _ = try JSONSerialization.jsonObject(with: Data())
            Issue.record("expected an error")
        } catch {
            #expect(error.requestError?.statusCode == 404)
            #expect(error.requestError?.responseBody == Data("gone".utf8))
        }
        #expect(CocoaError(.fileNoSuchFile).requestError == nil)
    }
}
