import Foundation
import RequestKit
import RequestKitTesting

/// Clients, endpoints, retries and authentication, and the main example of each library RequestKit's client
/// layer was conceived from, done the RequestKit way.
func clientTour(_ tour: inout Tour) async throws {
    let server = tour.server
    addTourRoutes(to: server)

    tour.section("A client: a base URL and defaults shared by every request")
    let client = Client(baseURL: server.url("/tour-api/")) {
        Header.UserAgent(.requestKit)
        Header.Accept(.json)
        Timeout(30)
    }
    let ping = Request { Url("/ping") }
    print("   → \(client.cURL(for: ping))")
    tour.received(try await client.string(ping) + "; the server saw \(tour.lastServerRequest)")

    tour.section("A typed endpoint: path template, output type and error body")
    let snakeCase = Client(baseURL: server.url("/tour-api/")) { $0.decoder.keyDecodingStrategy = .convertFromSnakeCase }
    let profile = try await snakeCase.send(GetProfile(userID: "ann lee"))
    tour.received("\(profile.displayName) (\(profile.userId)); the server saw \(tour.lastServerRequest)")
    do {
        _ = try await snakeCase.send(GetProfile(userID: "nobody"))
    } catch {
        tour.received("\(error.statusCode ?? 0): \(error.errorBody(as: APIMessage.self)?.message ?? "")")
    }

    tour.section("Retries with exponential backoff, honouring Retry-After")
    let retrying = Client(baseURL: server.url("/tour-api/")) { configuration in
        configuration.retryPolicy = .exponential(maxAttempts: 3, baseDelay: 0.05)
        configuration.monitors = [ConsoleLogger { print("   \($0)") }]
    }
    tour.received(try await retrying.string(Request { Path("flaky") }))

    tour.section("Bearer authentication that refreshes once on 401")
    let auth = BearerAuthenticator(token: "expired") { _ in
        try await Request {
            Url(server.url("/tour-api/token")); Method(.post)
        }.string()
    }
    let authorized = Client(baseURL: server.url("/tour-api/")) { $0.interceptors = [auth] }
    tour.received(try await authorized.string(Request { Path("me") }))

    try await codableRequestExample(&tour)
    try await endpointsExample(&tour)
    try await urlSessionAdapterExample(&tour)
    try await requestResponseExample(&tour)
}

/// CodableRequest's example: a JSON POST to a templated path, with the body, error body, a header, the status
/// and the cookies of the response in one place.
private func codableRequestExample(_ tour: inout Tour) async throws {
    tour.section("CodableRequest's example: a typed POST and everything about its response")
    let client = Client(baseURL: tour.server.url("/tour-api/")) { configuration in
        configuration.encoder.keyEncodingStrategy = .convertToSnakeCase
        configuration.decoder.keyDecodingStrategy = .convertFromSnakeCase
        configuration.retryPolicy = .exponential()
    }
    let endpoint = UpdateProfile(userID: "my-user-id", token: "my-oauth-token", payload: .init(someNumberValue: 42))
    print("   → \(client.cURL(for: endpoint.request))")
    let result = try await client.response(for: endpoint)
    tour.received("status \(result.statusCode), body \(result.value.someNumberValue)")
    tour.received("Content-Type \(result.headers.contentType?.essence ?? "?"), cookies \(result.cookies.map(\.name))")
}

/// Endpoints' example: a client for a base URL, a call with a query, parsed as data or JSON, and a dedicated
/// client that adds an API key to every request.
private func endpointsExample(_ tour: inout Tour) async throws {
    tour.section("Endpoints' example: calls and a dedicated client adding an API key")
    let giphy = Client(baseURL: tour.server.url("/tour-api/v1/")) { Query("api_key", value: "dc6zaTOxFJmzC") }
    let data = try await giphy.data(
        Request {
            Url("gifs/random"); Query("tag", value: "cat")
        })
    tour.received("\(data.count) bytes; the server saw \(tour.lastServerRequest)")
    let gif = try await giphy.send(GetRandomImage(tag: "cat"))
    tour.received("a \(gif.data.type.string ?? "?") titled \(gif.data.title.string ?? "?")")
}

/// URLSessionAdapter's example: endpoints for one base URL, decoded values, and global validation.
private func urlSessionAdapterExample(_ tour: inout Tour) async throws {
    tour.section("URLSessionAdapter's example: an activity repository")
    let client = Client(baseURL: tour.server.url("/tour-api/rest")) { Query("key", value: "secret-key") }
    let activity = try await client.decode(ActivityAPI.getActivity(id: 1), as: Activity.self)
    tour.received("\(activity.name): \(activity.description)")
    let created = try await client.string(ActivityAPI.createActivity(activity))
    tour.received("created activity \(created); the server saw \(tour.lastServerRequest)")
}

/// RequestResponse's example: a request relative to a base URL, built into a URL and a URLRequest, and a
/// response mapped to another value.
private func requestResponseExample(_ tour: inout Tour) async throws {
    tour.section("RequestResponse's example: build the URL and URLRequest, then map the typed response")
    struct SessionBody: Codable, Sendable {
        var username: String
        var password: String
    }
    let client = Client(baseURL: tour.server.url("/tour-api/"))
    let request = AnyRequest<Session> {
        Url("v1/session")
        Method(.post)
        Query([("ref", "abc")])
        Body(SessionBody(username: "u", password: "p"))
    }
    let urlRequest = try client.urlRequest(for: request)
    tour.received("URL \(urlRequest.url?.absoluteString ?? "")")
    let session = try await client.response(for: request)
    tour.received("status \(session.statusCode), user id \(session.map(\.userId).value)")
}

/// A profile, decoded from snake_case JSON.
struct TourProfile: Decodable, Sendable {
    let userId: String
    let displayName: String
}

/// An API's error body.
struct APIMessage: Decodable, Sendable {
    let message: String
}

/// `GET /profile/{user_id}`.
struct GetProfile: Endpoint {
    typealias Output = TourProfile
    typealias ErrorBody = APIMessage
    let userID: String
    var body: any RequestComponent {
        Path(template: "/profile/{user_id}", ["user_id": userID])
    }
}

/// `POST /profile/{user_id}` with a JSON body, in CodableRequest's example.
struct UpdateProfile: Endpoint {
    struct Payload: Codable, Sendable {
        var someNumberValue: Int
    }
    typealias Output = Payload
    typealias ErrorBody = APIMessage
    let userID: String
    let token: String
    let payload: Payload

    var body: any RequestComponent {
        Method(.post)
        Path(template: "/profile/{user_id}", ["user_id": userID])
        Header.Authorization(.bearer(token))
        Cookie("tracking", "off")
        Body(payload)
    }
}

/// Endpoints' dedicated call.
struct GetRandomImage: Endpoint {
    typealias Output = Json
    let tag: String
    var body: any RequestComponent {
        Url("gifs/random")
        Query("tag", value: tag)
    }
}

/// URLSessionAdapter's activity.
struct Activity: Codable, Sendable {
    let id: Int?
    let name: String
    let description: String
}

/// URLSessionAdapter's endpoints, as requests relative to the client's base URL.
enum ActivityAPI {
    static func getActivity(id: Int) -> Request {
        Request { Path("activities", id) }
    }

    static func createActivity(_ activity: Activity) -> Request {
        Request {
            Method(.post)
            Path("activities")
            Body(activity)
        }
    }
}

/// RequestResponse's session reply.
struct Session: Decodable, Sendable {
    let userId: Int
}

/// The routes the client tour talks to.
private func addTourRoutes(to server: TestServer) {
    let flaky = TourCounter()
    let tokens = TourCounter()
    server.route("/tour-api/ping") { _ in .text("pong") }
    server.route("/tour-api/profile/{id}", method: "GET") { request in
        let id = request.pathParameters["id"] ?? ""
        if id == "nobody" { return .json(Data(#"{"message":"no such user"}"#.utf8), status: 404) }
        return .json(Data(#"{"user_id":"\#(id.removingPercentEncoding ?? id)","display_name":"Ann"}"#.utf8))
    }
    server.route("/tour-api/profile/{id}", method: "POST") { request in
        var response = TestResponse.json(request.body)
        response.headers.append(("Set-Cookie", "session=s1; Path=/; HttpOnly"))
        return response
    }
    server.route("/tour-api/flaky") { _ in
        flaky.next() == 1 ? TestResponse(status: 503, headers: [("Retry-After", "0")]) : .text("recovered")
    }
    server.route("/tour-api/token", method: "POST") { _ in
        tokens.next()
        return .text("fresh")
    }
    server.route("/tour-api/me") { request in
        request.header("Authorization") == "Bearer fresh" ? .text("hello, authorized") : .status(401)
    }
    server.route("/tour-api/v1/gifs/random") { request in
        .json(Data(#"{"data":{"type":"gif","title":"\#(request.queryValue("tag") ?? "") dancing"}}"#.utf8))
    }
    server.route("/tour-api/rest/activities/{id}") { _ in
        .json(Data(#"{"id":1,"name":"Hiking","description":"A walk in the hills"}"#.utf8))
    }
    server.route("/tour-api/rest/activities", method: "POST") { _ in .text("2", status: 201) }
    server.route("/tour-api/v1/session", method: "POST") { _ in .json(Data(#"{"userId":7}"#.utf8)) }
}

/// A thread-safe counter for tour routes.
private final class TourCounter: @unchecked Sendable {
    // Safe: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count = 0

    @discardableResult
    func next() -> Int {
        lock.withLock {
            count += 1; return count
        }
    }
}
