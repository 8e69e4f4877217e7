import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Secrets kept out of output", .wallClock)
struct SecretRedactionTests {
    @Test("cURL redacts sensitive headers, the URL password, sensitive query values and JSON members")
    func curl() {
        let request = Request {
            Url("http://ann:hunter2@h.test/v1/items?api_key=K1&page=2&Token=T1&sig=S1")
            Header.Any(key: "X-Api-Key", value: "K2")
            Header.Any(key: "X-Auth-Token", value: "T2")
            Header.Any(key: "X-Tenant-Secret", value: "S2")
            Header.Accept(.json)
            Method(.post)
            Body(json: ["user": "ann", "password": "P1", "nested": ["secret": "S3", "list": [["token": "T3"]]]])
            Sensitive(headers: "X-Tenant-Secret")
            Sensitive(queries: "sig")
        }
        #expect(
            request.cURL
                == "curl -X POST 'http://h.test/v1/items?api_key=<redacted>&page=2&Token=<redacted>"
                + "&sig=<redacted>' -H 'Accept: application/json' -H 'Authorization: <redacted>' "
                + "-H 'Content-Type: application/json' "
                + "-H 'X-Api-Key: <redacted>' -H 'X-Auth-Token: <redacted>' -H 'X-Tenant-Secret: <redacted>' "
                + #"--data-binary '{"user":"ann","password":"<redacted>","nested":{"secret":"<redacted>","list":[{"token":"<redacted>"}]}}'"#
        )
        let shown = request.cURL(redactingSecrets: false)
        let basic = Data("ann:hunter2".utf8).base64EncodedString()
        for secret in [basic, "K1", "K2", "T1", "T2", "S1", "S2", "P1", "S3", "T3"] {
            #expect(shown.contains(secret), "\(secret)")
            #expect(!request.cURL.contains(secret), "\(secret)")
        }
    }

    @Test("Any text: a URL password and sensitive query values are redacted, nothing else")
    func text() {
        let sensitive = SensitiveData()
        #expect(
            sensitive.redacting("GET http://u:p@h/x?api_key=1&page=2&key=&Token=t#f, then ftp://h/?secret=s ok")
                == "GET http://u:<redacted>@h/x?api_key=<redacted>&page=2&key=&Token=<redacted>#f, then "
                + "ftp://h/?secret=<redacted> ok")
        #expect(sensitive.redacting("no URL here: a=1&b=2") == "no URL here: a=1&b=2")
        #expect(sensitive.redacting("http://user@h/?page=1") == "http://user@h/?page=1")
    }

    @Test("Form bodies have sensitive fields redacted")
    func formBody() {
        let request = Request {
            Url("http://h.test/login")
            Method(.post)
            Body(form: ["user": "ann", "password": "P 1", "access_token": "T"])
        }
        #expect(request.cURL.hasSuffix("--data-binary 'access_token=<redacted>&password=<redacted>&user=ann'"))
    }

    @Test("A client's sensitive names redact its cURL")
    func clientNames() throws {
        let client = Client(baseURL: try #require(URL(string: "http://h.test/api"))) { configuration in
            configuration.sensitiveData.queryNames.insert("session")
            configuration.sensitiveData.headerNames.insert("x-session")
        }
        let text = client.cURL(
            for: Request {
                Path("me"); Query("session", value: "abc"); Header.Any(key: "X-Session", value: "def")
            })
        #expect(text == "curl 'http://h.test/api/me?session=<redacted>' -H 'X-Session: <redacted>'")
    }

    @Test("ConsoleLogger prints no body unless asked, and redacts the URL")
    func logger() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let lines = Lines()
        let client = Client(baseURL: server.url("/")) { configuration in
            configuration.monitors = [ConsoleLogger { lines.append($0) }]
        }
        _ = try await client.send(
            Request {
                Path("anything"); Query("api_key", value: "K1"); Method(.post); Body(json: ["password": "P1"])
            })
        let first = try #require(lines.all.first)
        #expect(first.contains("api_key=<redacted>"))
        #expect(first.hasSuffix("# 17 bytes of body not shown"))
        #expect(!lines.all.joined().contains("K1") && !lines.all.joined().contains("P1"))
        let verbose = Lines()
        let loud = Client(baseURL: server.url("/")) { configuration in
            configuration.monitors = [ConsoleLogger(logsBodies: true) { verbose.append($0) }]
        }
        _ = try await loud.send(
            Request {
                Path("anything"); Method(.post); Body(json: ["password": "P1", "a": 1])
            })
        #expect(verbose.all.first?.hasSuffix(#"--data-binary '{"password":"<redacted>","a":1}'"#) == true)
    }

    @Test("Error descriptions redact the URL, also where the underlying error quotes it", arguments: WireTransport.all)
    func errorDescription(_ transport: WireTransport) async throws {
        let down = try RefusingPort()
        let url = down.url("/anything")
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(url)
                Using(transport.transport)
                Query("access_token", value: "T1")
                Query("page", value: "2")
                Timeout(5)
            }.data()
        }
        #expect(error.request == "GET \(url.absoluteString)?access_token=<redacted>&page=2")
        #expect(!error.description.contains("T1"))
        #expect(error.description.contains("access_token=<redacted>&page=2"))
    }

    @Test("A cross-origin redirect drops every sensitive header, custom ones too", arguments: WireTransport.all)
    func crossOriginRedirect(_ transport: WireTransport) async throws {
        let first = try transport.server()
        defer { first.stop() }
        let second = try transport.server()
        defer { second.stop() }
        let target = second.url("/anything/landed").absoluteString
        _ = try await Request {
            Url(first.url("/redirect-to"))
            Query("url", value: target)
            Using(transport.transport)
            Header.Any(key: "X-Api-Key", value: "K")
            Header.Any(key: "X-Auth-Token", value: "T")
            Header.Any(key: "X-Tenant-Secret", value: "S")
            Header.Any(key: "X-Vendor-Token", value: "V")
            Header.Authorization(.bearer("B"))
            Header.Any(key: "X-Plain", value: "kept")
            Sensitive(headers: "X-Tenant-Secret")
        }.send()
        let landed = try #require(second.requests.last)
        #expect(landed.path == "/anything/landed")
        for name in ["X-Api-Key", "X-Auth-Token", "X-Tenant-Secret", "X-Vendor-Token", "Authorization", "Cookie"] {
            #expect(landed.header(name) == nil, "\(name)")
        }
        #expect(landed.header("X-Plain") == "kept")
        #expect(first.requests.last?.header("X-Tenant-Secret") == "S")
        #expect(first.requests.last?.header("X-Vendor-Token") == "V")
    }
    @Test(
        "A name is secret when one of its words is a secret word: refresh_token, client_secret, X-Vendor-Token, apiKey",
        arguments: [
            ("X-Vendor-Token", true), ("refresh_token", true), ("id_token", true), ("client_secret", true),
            ("clientSecret", true), ("APIKey", true), ("x-api-key", true), ("X-Auth-User", true),
            ("new_password", true), ("Set-Cookie", true), ("oauth_signature", true), ("author", false),
            ("max_tokens", false), ("keyboard", false), ("X-Request-ID", false), ("Content-Type", false),
            ("page", false), ("WWW-Authenticate", false),
        ])
    func secretWords(_ name: String, _ isSecret: Bool) {
        let sensitive = SensitiveData()
        #expect(sensitive.isSensitive(header: name) == isSecret)
        #expect(sensitive.isSensitive(query: name) == isSecret)
        var namesOnly = SensitiveData()
        namesOnly.secretWords = []
        #expect(namesOnly.isSensitive(header: "X-Vendor-Token") == false)
        #expect(namesOnly.isSensitive(header: "Authorization") == true)
    }

    @Test("cURL redacts the common credential names and a multipart field named like a secret")
    func curlCredentialNames() {
        let request = Request {
            Url("http://h.test/token?client_secret=CS1&client_id=app")
            Header.Any(key: "X-Vendor-Token", value: "VT1")
            Method(.post)
            Body(json: ["refresh_token": "RT1", "id_token": "IT1", "author": "Ann", "max_tokens": 5])
        }
        #expect(
            request.cURL
                == "curl -X POST 'http://h.test/token?client_secret=<redacted>&client_id=app' "
                + "-H 'Content-Type: application/json' -H 'X-Vendor-Token: <redacted>' "
                + #"--data-binary '{"refresh_token":"<redacted>","id_token":"<redacted>","author":"Ann","max_tokens":5}'"#
        )
        let form = Form {
            Field("user", "ann")
            Field("password", "MP1")
        }
        let multipart = Request {
            Url("http://h.test/login"); Method(.post); form
        }
        let shown = multipart.cURL
        #expect(!shown.contains("MP1"))
        #expect(shown.contains("name=\"password\"\r\n\r\n<redacted>\r\n--\(form.boundary)"))
        #expect(shown.contains("name=\"user\"\r\n\r\nann\r\n"))
        #expect(multipart.cURL(redactingSecrets: false).contains("MP1"))
    }

    @Test("An error and a logged failure redact the request's secret values wherever they reappear")
    func echoedSecret() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // Echoes the raw body as text, as validation errors often do.
        server.route("/login", method: "POST") { request in
            TestResponse(
                headers: [("Content-Type", "text/plain")],
                body: .data(Data("invalid login: ".utf8) + request.body))
        }
        struct Token: Decodable { let token: String }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(server.url("/login")); Method(.post)
                Body(json: ["user": "ann", "password": "wrong-SECRET-PW"])
            }.decode(Token.self)
        }
        #expect(error.kind == .decoding)
        #expect(String(decoding: error.responseBody ?? Data(), as: UTF8.self).contains("wrong-SECRET-PW"))
        for text in ["\(error)", String(reflecting: error), error.localizedDescription] {
            #expect(!text.contains("wrong-SECRET-PW"), "\(text)")
            #expect(
                text.contains(#"invalid login: {\"user\":\"ann\",\"password\":\"<redacted>\"}"#)
                    || text.contains(#"{"user":"ann","password":"<redacted>"}"#), "\(text)")
        }
        let lines = Lines()
        let failing = MockTransport { _ in
            throw RequestError.transport(POSIXError(.ECONNRESET), detail: "the proxy said: bad token tok-ECHOED-1234")
        }
        _ = try? await Request {
            Url("http://h.test/me"); Using(failing); Header.Authorization(.bearer("tok-ECHOED-1234"))
            Monitor(ConsoleLogger { lines.append($0) })
        }.send()
        let failure = try #require(lines.all.last)
        #expect(failure.hasPrefix("✗ transport"))
        #expect(!failure.contains("tok-ECHOED-1234") && failure.contains("bad token <redacted>"))
    }

}

/// Lines a logger wrote, collected across threads.
final class Lines: @unchecked Sendable {
    // Safe: `lines` is only touched while holding `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
