import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Every way a value prints (`print`, interpolation, `debugPrint`, `dump`, `localizedDescription`) redacts the
/// secrets `SensitiveData` names: headers, query items, URL passwords, and JSON and form members of bodies,
/// error bodies included.
@Suite("Nothing prints a secret", .wallClock)
struct SecretsInDescriptionsTests {
    private static let secrets = [
        "SECRET-TOKEN", "SECRET-QUERY", "SECRET-PASS", "SECRET-JSON", "SECRET-FORM", "SECRET-COOKIE", "SECRET-ERR",
        "SECRET-KEY",
    ]

    /// Everything a value can print as.
    private func printed(_ value: Any) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        var text = "\(value)\n\(String(reflecting: value))\n\(dumped)"
        if let error = value as? any Error { text += "\n" + error.localizedDescription }
        return text
    }

    private func expectNoSecret(_ value: Any, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let text = printed(value)
        for secret in Self.secrets {
            #expect(!text.contains(secret), "\(what) shows \(secret):\n\(text)", sourceLocation: sourceLocation)
        }
        #expect(text.contains("<redacted>"), "\(what) redacts nothing:\n\(text)", sourceLocation: sourceLocation)
    }

    private func makeServer() throws -> TestServer {
        let server = try TestServer()
        server.route("/login", method: "POST") { _ in
            TestResponse(
                status: 401, headers: [("Content-Type", "application/json"), ("Set-Cookie", "session=SECRET-COOKIE")],
                body: .data(Data(#"{"error":"bad login","password":"SECRET-ERR"}"#.utf8)))
        }
        server.route("/me") { _ in
            TestResponse(
                headers: [("Content-Type", "application/json"), ("Set-Cookie", "session=SECRET-COOKIE")],
                body: .data(Data(#"{"name":"Ann","token":"SECRET-JSON"}"#.utf8)))
        }
        return server
    }

    /// A URL with a sensitive query item, and with a password unless the request sets `Authorization`.
    private func secretURL(_ server: TestServer, _ path: String, password: Bool = false) -> String {
        "http://\(password ? "ann:SECRET-PASS@" : "")127.0.0.1:\(server.port)\(path)?token=SECRET-QUERY&page=1"
    }

    @Test("Request, AnyRequest and ClientRequest print redacted: headers, query, URL password, JSON and form bodies")
    func requests() throws {
        let json = Request {
            Url("http://example.com/login?token=SECRET-QUERY")
            Method(.post)
            Header.Authorization(.bearer("SECRET-TOKEN"))
            Header.Any(key: "X-Api-Key", value: "SECRET-KEY")
            Body(json: ["user": "ann", "password": "SECRET-JSON"])
        }
        expectNoSecret(json, "Request")
        #expect(json.description.contains(#"{"user":"ann","password":"<redacted>"}"#))
        let form = Request {
            Url("http://ann:SECRET-PASS@example.com/login?api_key=SECRET-QUERY")
            Method(.post)
            Body(form: [("user", "ann"), ("password", "SECRET-FORM")])
        }
        expectNoSecret(form, "Request with a form body")
        #expect(form.description.contains("user=ann&password=<redacted>"))
        let typed = AnyRequest<[String]> {
            Url("http://example.com/items?token=SECRET-QUERY")
            Header.Authorization(.bearer("SECRET-TOKEN"))
        }
        expectNoSecret(typed, "AnyRequest")
        let client = Client(baseURL: URL(fileURLWithPath: "/")) { configuration in
            configuration.sensitiveData.headerNames.insert("x-tenant")
        }
        let clientRequest = client.request(
            Request {
                Url("http://example.com/me?token=SECRET-QUERY")
                Header.Any(key: "X-Tenant", value: "SECRET-KEY")
                Header.Authorization(.bearer("SECRET-TOKEN"))
            })
        expectNoSecret(clientRequest, "ClientRequest")
    }

    @Test("Response, TypedResponse and StreamingResponse print redacted: URL, Set-Cookie, JSON body members")
    func responses() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let request = Request {
            Url(secretURL(server, "/me"))
            Header.Authorization(.bearer("SECRET-TOKEN"))
        }
        let response = try await request.send()
        #expect(response.statusCode == 200)
        expectNoSecret(response, "Response")
        #expect(String(reflecting: response).contains(#"{"name":"Ann","token":"<redacted>"}"#))

        struct Me: Decodable, Sendable { let name: String }
        let client = Client(baseURL: server.url("/"))
        let typed = try await client.response(for: AnyRequest<Me> { Url(secretURL(server, "/me", password: true)) })
        #expect(typed.value.name == "Ann")
        expectNoSecret(typed, "TypedResponse")

        let stream = try await request.stream()
        expectNoSecret(stream, "StreamingResponse")
    }

    @Test("RequestError, a chain step's error and a group slot's error print the error body redacted")
    func errors() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let login = Request {
            Url(secretURL(server, "/login"))
            Method(.post)
            Header.Authorization(.bearer("SECRET-TOKEN"))
            Body(json: ["user": "ann", "password": "SECRET-JSON"])
        }
        let error = await #expect(throws: RequestError.self) { try await login.data() }
        let failure = try #require(error)
        #expect(failure.statusCode == 401)
        expectNoSecret(failure, "RequestError")
        #expect(failure.description.contains(#"body: {"error":"bad login","password":"<redacted>"}"#))

        let chainError = await #expect(throws: RequestError.self) {
            try await RequestChain { Step("login", login) }.send()
        }
        expectNoSecret(try #require(chainError), "a chain step's error")

        let results = try await RequestGroup { login }.send()
        guard case .failure(let slotError) = results.first else {
            Issue.record("the group's request succeeded")
            return
        }
        expectNoSecret(slotError, "a group slot's error")
    }

    @Test("A WebSocket definition, its refused handshake's error and an open socket print redacted")
    func webSockets() async throws {
        let server = try makeServer()
        defer { server.stop() }
        server.route("/refuse") { _ in
            TestResponse(
                status: 403, headers: [("Content-Type", "application/json"), ("Set-Cookie", "session=SECRET-COOKIE")],
                body: .data(Data(#"{"error":"no","password":"SECRET-ERR"}"#.utf8)))
        }
        let query = "?token=SECRET-QUERY&page=1"
        let refused = WebSocket {
            Url("ws://127.0.0.1:\(server.port)/refuse\(query)")
            Header.Authorization(.bearer("SECRET-TOKEN"))
            Header.Any(key: "X-Api-Key", value: "SECRET-KEY")
        }
        expectNoSecret(refused, "WebSocket")
        let error = await #expect(throws: RequestError.self) { _ = try await refused.connect() }
        let failure = try #require(error)
        #expect(failure.webSocketFailure == .handshakeRefused)
        #expect(failure.statusCode == 403)
        expectNoSecret(failure, "a refused handshake's error")
        #expect(failure.description.contains(#"body: {"error":"no","password":"<redacted>"}"#))
        let socket = try await WebSocket {
            Url("ws://127.0.0.1:\(server.port)/websocket/echo\(query)")
            Header.Authorization(.bearer("SECRET-TOKEN"))
        }.connect()
        defer { Task { try? await socket.close() } }
        let printedSocket = printed(socket)
        for secret in Self.secrets { #expect(!printedSocket.contains(secret), "a socket shows \(secret)") }
    }
}
