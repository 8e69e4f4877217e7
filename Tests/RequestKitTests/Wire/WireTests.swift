import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Requests on the wire", .wallClock)
struct WireTests {
    @Test("The server receives the exact query, method, headers and body", arguments: WireTransport.withTLS)
    func exactRequest(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/anything/items?existing=1"))
            Using(transport.transport)
            Path("a/b")
            Method(.post)
            Query("q", value: "a+b&c=d e")
            Query("flag", value: nil as String?)
            Header.Accept(.json)
            Header.Any(key: "X-Custom", value: "yes")
            Body(form: ["name": "Ann Lee"])
        }.send()
        #expect(response.statusCode == 200)
        let received = try #require(server.requests.last)
        #expect(received.method == "POST")
        #expect(received.target == "/anything/items/a%2Fb?existing=1&q=a%2Bb%26c%3Dd%20e&flag")
        #expect(received.header("Accept") == "application/json")
        #expect(received.header("X-Custom") == "yes")
        #expect(received.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(received.header("Content-Length") == "12")
        #expect(received.body == Data("name=Ann+Lee".utf8))
        #expect(received.queryItems.map(\.name) == ["existing", "q", "flag"])
        #expect(received.queryValue("q") == "a+b&c=d e")
    }

    @Test("A JSON body arrives byte for byte with its Content-Type", arguments: WireTransport.withTLS)
    func jsonBody(_ transport: WireTransport) async throws {
        struct Todo: Codable, Sendable { let title: String }
        let server = try transport.server()
        defer { server.stop() }
        _ = try await Request {
            Url(server.url("/anything"))
            Using(transport.transport)
            Method(.put)
            Body(Todo(title: "caf\u{e9} & \"quotes\""))
        }.data()
        let received = try #require(server.requests.last)
        #expect(received.body == Data(#"{"title":"café & \"quotes\""}"#.utf8))
        #expect(received.header("Content-Type") == "application/json")
    }

    @Test(
        "Statuses: send() returns them, data() throws with status, headers and body", arguments: WireTransport.withTLS)
    func statuses(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let request = Request {
            Url(server.url("/status/418"))
            Using(transport.transport)
        }
        #expect(try await request.send().status == 418)
        let error = try await #require(throws: RequestError.self) { try await request.data() }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 418)
        #expect(error.responseBody == Data("status 418".utf8))
        #expect(error.responseHeaders?["Content-Length"] == "10")
        let noContent = try await Request {
            Url(server.url("/status/204"))
            Using(transport.transport)
        }.data()
        #expect(noContent.isEmpty)
    }

    @Test(
        "Response headers are read case-insensitively; the final URL follows redirects",
        arguments: WireTransport.withTLS)
    func responseDetails(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/redirect/2"))
            Using(transport.transport)
        }.send()
        #expect(response.statusCode == 200)
        #expect(response.url == server.url("/get"))
        #expect(response.headers["content-type"] == response.headers["Content-Type"])
        #expect(response.headers["CONTENT-TYPE"]?.hasPrefix("application/json") == true)
        #expect(server.requests.map(\.path) == ["/redirect/2", "/redirect/1", "/get"])
    }

    @Test("Basic authentication round trip", arguments: WireTransport.withTLS)
    func basicAuth(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let ok = try await Request {
            Url(server.url("/basic-auth/ann/s3cret"))
            Using(transport.transport)
            Header.Authorization(.basic(username: "ann", password: "s3cret"))
        }.send()
        #expect(ok.statusCode == 200)
        let denied = try await Request {
            Url(server.url("/basic-auth/ann/s3cret"))
            Using(transport.transport)
            Header.Authorization(.basic(username: "ann", password: "wrong"))
        }.send()
        #expect(denied.statusCode == 401)
        #expect(denied.headers["WWW-Authenticate"] == #"Basic realm="Fake Realm""#)
        #expect(denied.body == Data(#"{"authenticated":false}"#.utf8))
    }

    @Test("A typed request decodes the server's JSON", arguments: WireTransport.withTLS)
    func typedValue(_ transport: WireTransport) async throws {
        struct Echo: Decodable, Sendable {
            let method: String
            let args: [String: String]
        }
        let server = try transport.server()
        defer { server.stop() }
        let echo = try await AnyRequest<Echo> {
            Url(server.url("/anything"))
            Using(transport.transport)
            Query("userId", value: 1)
        }.value()
        #expect(echo.method == "GET")
        #expect(echo.args == ["userId": "1"])
    }

    @Test("A header with CR/LF is never sent", arguments: WireTransport.withTLS)
    func injectionNeverSent(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/anything"))
                Using(transport.transport)
                Header.Any(key: "X-Evil", value: "a\r\nX-Injected: 1")
            }.send()
        }
        #expect(error.kind == .invalidRequest)
        #expect(server.stats.requestCount == 0)
    }
}
