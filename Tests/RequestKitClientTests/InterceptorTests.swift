import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitFeatures
import RequestKitModel
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Interceptors and bearer authentication", .wallClock)
struct InterceptorTests {
    struct Stamp: Interceptor {
        let name: String
        func adapt(_ request: URLRequest) async throws -> URLRequest {
            var request = request
            let previous = request.value(forHTTPHeaderField: "X-Trail").map { $0 + "," } ?? ""
            request.setValue(previous + name, forHTTPHeaderField: "X-Trail")
            return request
        }
    }

    struct Refuse: Interceptor {
        struct Refused: Error {}
        func adapt(_ request: URLRequest) async throws -> URLRequest { throw Refused() }
    }

    /// A server whose `/protected` accepts only `Bearer fresh`, and whose `/refresh` issues `fresh` slowly (or
    /// fails with `refreshStatus`, more slowly still, so every request's 401 arrives while it runs).
    /// A server whose `/protected` wants `Bearer fresh` and whose `/refresh` answers `refreshStatus`. The refresh
    /// answers only after `refreshAfterUnauthorized` 401s have gone out (waiting at most 60 s), so that many
    /// requests are waiting on it however slowly they start.
    private func authServer(
        for wire: WireTransport? = nil, refreshStatus: Int = 200, refreshAfterUnauthorized: Int = 0
    ) throws -> TestServer {
        let server = try wire?.server() ?? TestServer()
        let unauthorized = Counter()
        server.route("/protected") { request in
            guard request.header("Authorization") == "Bearer fresh" else {
                unauthorized.next()
                return .status(401)
            }
            return .text("ok")
        }
        server.route("/refresh", method: "POST") { _ in
            (refreshStatus == 200 ? TestResponse.text("fresh") : .status(refreshStatus))
                .held(longest: .seconds(60)) { unauthorized.value >= refreshAfterUnauthorized }
                .delayed(by: .milliseconds(refreshStatus == 200 ? 300 : 1000))
        }
        return server
    }

    private func authenticator(_ server: TestServer, calls: Counter) -> BearerAuthenticator {
        BearerAuthenticator(token: "stale") { _ in
            calls.next()
            return try await Request {
                Url(server.url("/refresh")); Method(.post)
            }.string()
        }
    }

    @Test("useBearerToken sends the token, refreshes it once on a 401, and resends", arguments: WireTransport.all)
    func bearerTokenShortcut(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/me") { request in
            request.header("Authorization") == "Bearer fresh" ? .text("ann") : .status(401)
        }
        let calls = Counter()
        var authenticator: BearerAuthenticator?
        let client = try Client(baseURL: server.url("/").absoluteString) { configuration in
            configuration.transport = transport.transport
            authenticator = configuration.useBearerToken("stale") { rejected in
                calls.next()
                return rejected == "stale" ? "fresh" : "wrong"
            }
        }
        #expect(try await client.string(Request { Path("me") }) == "ann")
        #expect(calls.value == 1)
        #expect(server.requests.map { $0.header("Authorization") } == ["Bearer stale", "Bearer fresh"])
        #expect(try await authenticator?.currentToken() == "fresh")
    }

    @Test("cURL shows the Authorization useBearerToken sends and the jar's cookies, as the server gets them")
    func cURLShowsWhatIsSent() async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/me") { request in
            request.header("Authorization") == "Bearer fresh" ? .text("ann") : .status(401)
        }
        let jar = CookieJar()
        jar.store([ResponseCookie(name: "session", value: "jar-cookie")], from: server.url("/"))
        let client = try Client(baseURL: server.url("/").absoluteString) { configuration in
            configuration.cookieJar = jar
            configuration.useBearerToken("stale") { _ in "fresh" }
        }
        let me = Request { Path("me") }
        #expect(
            client.cURL(for: me)
                == "curl '\(server.url("/me").absoluteString)' -H 'Authorization: <redacted>' -H 'Cookie: <redacted>'")
        #expect(client.request(me).description == client.cURL(for: me))
        let shown = client.request(me).cURL(redactingSecrets: false)
        #expect(shown.contains("-H 'Authorization: Bearer stale'") && shown.contains("-H 'Cookie: session=jar-cookie'"))
        #expect(try await client.string(me) == "ann")
        // After the refresh the token shown is the one sent.
        let sent = try #require(server.requests.last)
        #expect(sent.header("Authorization") == "Bearer fresh" && sent.header("Cookie") == "session=jar-cookie")
        #expect(client.request(me).cURL(redactingSecrets: false).contains("-H 'Authorization: Bearer fresh'"))
        // An interceptor of one's own shows what it adds through preview(_:).
        let stamped = Request {
            Path("me"); Intercept(Stamp(name: "one"))
        }
        #expect(!client.request(stamped).cURL.contains("X-Trail"))
        #expect(
            client.request(
                Request {
                    Path("me"); Intercept(Previewed())
                }
            ).cURL.contains("-H 'X-Trail: shown'"))
    }

    /// An interceptor whose preview shows the header it adds.
    struct Previewed: Interceptor {
        func adapt(_ request: URLRequest) async throws -> URLRequest { preview(request) }
        func preview(_ request: URLRequest) -> URLRequest {
            var request = request
            request.setValue("shown", forHTTPHeaderField: "X-Trail")
            return request
        }
    }

    @Test("Interceptors adapt every request in order: the client's, then the request's", arguments: WireTransport.all)
    func adaptOrder(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let client = Client(baseURL: server.url("/")) {
            $0.transport = transport.transport
            $0.interceptors = [Stamp(name: "a"), Stamp(name: "b")]
        }
        _ = try await client.send(
            Request {
                Path("anything"); Intercept(Stamp(name: "c"))
            })
        #expect(server.requests.last?.header("X-Trail") == "a,b,c")
        let error = try await #require(throws: RequestError.self) {
            try await client.send(
                Request {
                    Path("anything"); Intercept(Refuse())
                })
        }
        #expect(error.kind == .interceptorFailed)
        #expect(server.requests.count == 1)
    }

    /// Retries a 418 once, after a short delay, counting its decisions.
    struct RetryTeapot: Interceptor {
        let log: Log
        func retry(
            _ request: URLRequest, outcome: Result<Response, RequestError>, context: RetryContext
        ) async throws -> RetryDecision {
            log.add("attempt \(context.attempt), earlier retries \(context.previousRetries)")
            guard case .success(let response) = outcome, response.statusCode == 418, context.previousRetries == 0 else {
                return .doNotRetry
            }
            return .retry(after: 0.01)
        }
    }

    @Test(
        "An interceptor's retry decision resends the request and sees its own earlier retries",
        arguments: WireTransport.all)
    func interceptorRetry(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let log = Log()
        let response = try await Request {
            Url(server.url("/status/418"))
            Using(transport.transport); Intercept(RetryTeapot(log: log))
        }.send()
        #expect(response.statusCode == 418)
        #expect(server.requests.count == 2)
        #expect(log.entries == ["attempt 1, earlier retries 0", "attempt 2, earlier retries 1"])
        #expect(RetryDecision.retry(after: -1).delay == 0)
        #expect(RetryDecision.doNotRetry.isRetry == false)
    }

    @Test(
        "Twenty concurrent 401s run exactly one refresh and every request ends 200 with the new token",
        arguments: WireTransport.all)
    func singleFlightRefresh(_ transport: WireTransport) async throws {
        let server = try authServer(for: transport)
        defer { server.stop() }
        let calls = Counter()
        let client = Client(baseURL: server.url("/")) {
            $0.transport = transport.transport
            $0.interceptors = [authenticator(server, calls: calls)]
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await client.send(Request { Path("protected") }).statusCode } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(calls.value == 1)
        #expect(server.requests.filter { $0.path == "/refresh" }.count == 1)
        let protected = server.requests.filter { $0.path == "/protected" }
        #expect(protected.filter { $0.header("Authorization") == "Bearer fresh" }.count == 20)
        #expect(protected.count <= 40)
    }

    @Test("A failed refresh fails every waiting request with a clear authentication error")
    func failedRefresh() async throws {
        let server = try authServer(refreshStatus: 500, refreshAfterUnauthorized: 5)
        defer { server.stop() }
        let calls = Counter()
        let client = Client(baseURL: server.url("/")) { $0.interceptors = [authenticator(server, calls: calls)] }
        let kinds = await withTaskGroup(of: RequestError.Kind?.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do throws(RequestError) {
                        _ = try await client.send(Request { Path("protected") })
                        return nil
                    } catch {
                        return error.kind
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(kinds == Array(repeating: .authenticationFailed, count: 5))
        #expect(calls.value == 1)
        let error = try await #require(throws: RequestError.self) {
            try await client.send(Request { Path("protected") })
        }
        #expect(error.statusCode == 401)
        #expect(error.description.contains("refreshing the bearer token after a 401 failed"))
    }

    @Test("A 401 after the refresh is returned, not refreshed again", arguments: WireTransport.all)
    func noRefreshLoop(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/never") { _ in .status(401) }
        let calls = Counter()
        let auth = BearerAuthenticator(token: "t0") { _ in "t\(calls.next())" }
        let response = try await Request {
            Url(server.url("/never"))
            Using(transport.transport); Intercept(auth)
        }.send()
        #expect(response.statusCode == 401)
        #expect(calls.value == 1)
        #expect(server.requests.map { $0.header("Authorization") ?? "" } == ["Bearer t0", "Bearer t1"])
        #expect(try await auth.currentToken() == "t1")
    }
}
