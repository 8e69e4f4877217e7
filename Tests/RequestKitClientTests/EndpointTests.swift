import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitJSON
import RequestKitModel
import RequestKitSending
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Endpoints and response mapping", .wallClock)
struct EndpointTests {
    struct Profile: Decodable, Sendable, Equatable {
        let userId: String
        let displayName: String
    }

    struct APIProblem: Decodable, Sendable, Equatable {
        let message: String
    }

    struct GetProfile: Endpoint {
        typealias Output = Profile
        typealias ErrorBody = APIProblem
        let userID: String
        var body: any RequestComponent {
            Path(template: "/profile/{user_id}", ["user_id": userID])
            Header.Accept(.json)
        }
    }

    struct DeleteProfile: Endpoint {
        typealias Output = NoContent
        let userID: String
        var body: any RequestComponent {
            Method(.delete)
            Path("profile", userID)
        }
    }

    struct Text: Endpoint {
        typealias Output = String
        var body: any RequestComponent { Path("text") }
    }

    struct Bytes: Endpoint {
        typealias Output = Data
        var body: any RequestComponent { Path("text") }
    }

    struct Document: Endpoint {
        typealias Output = Json
        var body: any RequestComponent { Path("doc") }
    }

    private func makeServer(for wire: WireTransport? = nil) throws -> (TestServer, Client) {
        let server = try wire?.server() ?? TestServer()
        server.route("/api/profile/{id}", method: "GET") { request in
            let id = request.pathParameters["id"] ?? ""
            if id == "missing" { return .json(Data(#"{"message":"no such user"}"#.utf8), status: 404) }
            return .json(Data(#"{"user_id":"\#(id)","display_name":"Ann"}"#.utf8))
        }
        server.route("/api/profile/{id}", method: "DELETE") { _ in .status(204) }
        server.route("/api/text") { _ in .text("héllo") }
        server.route("/api/doc") { _ in .json(Data(#"{"a":[1,2]}"#.utf8)) }
        let client = Client(baseURL: server.url("/api/")) { configuration in
            configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
        }
        return (server, client)
    }

    @Test("An endpoint fills its path template, percent-encoded, and decodes with the client's decoder")
    func decodesOutput() async throws {
        let (server, client) = try makeServer()
        defer { server.stop() }
        let profile = try await client.send(GetProfile(userID: "ann lee"))
        #expect(profile == Profile(userId: "ann lee", displayName: "Ann"))
        #expect(server.requests.last?.target == "/api/profile/ann%20lee")
        #expect(server.requests.last?.header("Accept") == "application/json")
    }

    @Test("A non-success status throws an error keeping the status and the decoded error body")
    func decodesErrorBody() async throws {
        let (server, client) = try makeServer()
        defer { server.stop() }
        let error = try await #require(throws: RequestError.self) {
            try await client.send(GetProfile(userID: "missing"))
        }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
        #expect(error.errorBody(as: APIProblem.self) == APIProblem(message: "no such user"))
    }

    @Test("A 204 decodes into NoContent instead of failing")
    func noContent() async throws {
        let (server, client) = try makeServer()
        defer { server.stop() }
        let result = try await client.response(for: DeleteProfile(userID: "ann"))
        #expect(result.value == NoContent())
        #expect(result.statusCode == 204)
        #expect(server.requests.last?.method == "DELETE")
        let empty = Response(status: .ok, body: Data())
        #expect(try empty.decode(NoContent.self) == NoContent())
    }

    @Test("A typed response says where it came from and where its time went, as its response does")
    func typedMetricsAndCacheStatus() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/api/text") { _ in
            TestResponse(headers: [("Cache-Control", "max-age=60")], body: .data(Data("hi".utf8)))
        }
        let client = Client(baseURL: server.url("/api/")) { configuration in
            configuration.cache = ResponseCache(.memory(), clock: RequestClock(TestClock()))
        }
        let first = try await client.response(for: Text())
        let second = try await client.response(for: Text())
        #expect(first.value == "hi" && second.value == "hi")
        #expect(first.cacheStatus == .network && second.cacheStatus == .hit)
        #expect(first.metrics.attempts.map(\.status) == [.ok] && first.metrics == first.response.metrics)
        #expect(second.metrics.attempts.isEmpty)
        #expect(first.map(\.count).metrics == first.metrics && first.map(\.count).cacheStatus == .network)
        #expect(server.requests.count == 1)
    }

    @Test("String, Data and Json outputs use their own parsers")
    func otherOutputs() async throws {
        let (server, client) = try makeServer()
        defer { server.stop() }
        #expect(try await client.send(Text()) == "héllo")
        #expect(try await client.send(Bytes()) == Data("héllo".utf8))
        #expect(try await client.send(Document()) == ["a": [1, 2]])
    }

    @Test("The client's calls decode, parse and validate with its configuration", arguments: WireTransport.all)
    func clientCalls(_ transport: WireTransport) async throws {
        let (server, client) = try makeServer(for: transport)
        defer { server.stop() }
        let profile = try await client.decode(Request { Path("profile", "bo") }, as: Profile.self)
        #expect(profile.userId == "bo")
        #expect(try await client.string(Request { Url("text") }) == "héllo")
        #expect(try await client.json(Request { Url("/doc") }) == ["a": [1, 2]])
        let error = try await #require(throws: RequestError.self) {
            try await client.data(Request { Path("profile", "missing") })
        }
        #expect(error.statusCode == 404)
        let lenient = Client(baseURL: server.url("/api")) {
            $0.transport = transport.transport
            $0.validation = .none
        }
        #expect(
            try await lenient.data(Request { Path("profile", "missing") }) == Data(#"{"message":"no such user"}"#.utf8))
        let strict = Request {
            Path("text"); Validate(contentType: .json)
        }
        let rejected = try await #require(throws: RequestError.self) { try await client.data(strict) }
        #expect(rejected.kind == .validationFailed)
        let checked = Request {
            Path("text"); Validate { response in response.body.count == 6 }
        }
        #expect(try await client.data(checked).count == 6)
    }

    @Test("Typed header accessors read Content-Length, ETag, Last-Modified, Location and Retry-After")
    func typedHeaders() throws {
        let headers: HTTPHeaders = [
            "Content-Length": "42", "Content-Type": "application/json; charset=utf-8", "ETag": "W/\"v1\"",
            "Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT", "Location": "/jobs/1", "Retry-After": "120",
        ]
        #expect(headers.contentLength == 42)
        #expect(headers.contentType?.essence == "application/json")
        #expect(headers.etag == "W/\"v1\"")
        #expect(headers.lastModified == Date(timeIntervalSince1970: 1_445_412_480))
        #expect(headers.location?.absoluteString == "/jobs/1")
        #expect(
            headers.location(relativeTo: URL(string: "http://h.test/a/b"))?.absoluteString == "http://h.test/jobs/1")
        #expect(headers.retryAfter() == 120)
        let dated: HTTPHeaders = ["Retry-After": "Wed, 21 Oct 2015 07:28:30 GMT"]
        #expect(dated.retryAfter(now: Date(timeIntervalSince1970: 1_445_412_480)) == 30)
        #expect(HTTPHeaders().contentLength == nil)
    }
}

@Suite("Typed requests through a client", .wallClock)
struct ClientTypedRequestTests {
    struct Echo: Decodable, Sendable {
        let method: String
        let args: [String: String]
    }

    @Test(
        "An AnyRequest sent by a client decodes with the client's decoder and keeps the response",
        arguments: WireTransport.all)
    func anyRequest(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/snake") { _ in .json(Data(#"{"user_id":7}"#.utf8)) }
        struct User: Decodable, Sendable { let userId: Int }
        let client = Client(baseURL: server.url("/")) {
            $0.transport = transport.transport
            $0.decoder.keyDecodingStrategy = .convertFromSnakeCase
        }
        #expect(try await client.value(AnyRequest<User> { Path("snake") }).userId == 7)
        let echo = try await client.response(
            for: AnyRequest<Echo> {
                Path("anything"); Query("a", value: 1)
            })
        #expect(echo.value.method == "GET")
        #expect(echo.value.args == ["a": "1"])
        #expect(echo.statusCode == 200)
        #expect(echo.map(\.method).value == "GET")
    }
}
