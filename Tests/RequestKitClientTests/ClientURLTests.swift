import Foundation
import RequestKitClient
import RequestKitDSL
import RequestKitModel
import RequestKitTesting
import Testing

@Suite("Client base URL and defaults")
struct ClientURLTests {
    private func url(base: String, @RequestBuilder _ content: () -> any RequestComponent) throws -> String {
        let client = Client(baseURL: try #require(URL(string: base)))
        return try #require(try client.urlRequest(for: Request(content)).url?.absoluteString)
    }

    @Test("A base URL given as text works as a URL does, and invalid text is a typed error saying why")
    func stringBaseURL() throws {
        let client = try Client(baseURL: "http://h.test/api/") { Header.Accept(.json) }
        let built = try client.urlRequest(for: Request { Path("users", 1) })
        #expect(built.url?.absoluteString == "http://h.test/api/users/1")
        #expect(built.value(forHTTPHeaderField: "Accept") == "application/json")
        let socket = try Client(baseURL: "http+unix://%2Frun%2Fapp.sock/v1/")
        #expect(
            try socket.urlRequest(for: Request { Path("info") }).url?.absoluteString
                == "http+unix://%2Frun%2Fapp.sock/v1/info")
        let configured = try Client(baseURL: "https://h.test") { $0.retryPolicy = .exponential() }
        #expect(configured.baseURL.absoluteString == "https://h.test")
        let cases: [(String, RequestProblem.Kind, String)] = [
            ("", .malformedURL, "the base URL \"\" is malformed"),
            (
                "h.test/api", .unsupportedScheme,
                "the base URL \"h.test/api\" has scheme none; only http, https, http+unix and https+unix are supported"
            ),
            (
                "ftp://h.test", .unsupportedScheme,
                "the base URL \"ftp://h.test\" has scheme \"ftp\"; only http, https, http+unix and https+unix are supported"
            ),
            ("http://", .malformedURL, "the base URL \"http://\" has no host"),
        ]
        for (text, kind, message) in cases {
            let error = try #require(throws: RequestError.self) { try Client(baseURL: text) }
            #expect(error.kind == .invalidRequest)
            #expect(error.problems.map(\.kind) == [kind])
            #expect(error.problems.map(\.message) == [message])
        }
    }

    @Test("A relative Url joins the base with exactly one slash, whatever slashes either side has")
    func relativeURLJoining() throws {
        #expect(try url(base: "http://h.test/api") { Url("users") } == "http://h.test/api/users")
        #expect(try url(base: "http://h.test/api") { Url("/users") } == "http://h.test/api/users")
        #expect(try url(base: "http://h.test/api/") { Url("users") } == "http://h.test/api/users")
        #expect(try url(base: "http://h.test/api/") { Url("/users") } == "http://h.test/api/users")
        #expect(try url(base: "http://h.test") { Url("users/1") } == "http://h.test/users/1")
        #expect(try url(base: "http://h.test/") { Url("/users/1") } == "http://h.test/users/1")
    }

    @Test("Paths append to the base, with or without a trailing slash or a leading slash in a template")
    func pathJoining() throws {
        #expect(try url(base: "http://h.test/v1") { Path("users", 42) } == "http://h.test/v1/users/42")
        #expect(try url(base: "http://h.test/v1/") { Path("users") } == "http://h.test/v1/users")
        #expect(
            try url(base: "http://h.test/v1/") { Path(template: "/profile/{id}", ["id": "ann lee"]) }
                == "http://h.test/v1/profile/ann%20lee")
        #expect(
            try url(base: "http://h.test/v1") {
                Url("users"); Path("7")
            } == "http://h.test/v1/users/7")
    }

    @Test("A query in the base URL is kept before the request's own query")
    func queryInBase() throws {
        #expect(
            try url(base: "http://h.test/api?key=k1") { Url("users?page=2") }
                == "http://h.test/api/users?key=k1&page=2")
        #expect(
            try url(base: "http://h.test/api/?key=k1") {
                Path("users"); Query("page", value: 2)
            }
                == "http://h.test/api/users?key=k1&page=2")
        #expect(try url(base: "http://h.test/api?key=k1") { Url("/users") } == "http://h.test/api/users?key=k1")
    }

    @Test("Without Url or Path the base URL is the request URL; an absolute Url ignores the base")
    func baseAloneAndAbsolute() throws {
        #expect(try url(base: "http://h.test/api") { Method(.get) } == "http://h.test/api")
        #expect(try url(base: "http://h.test/api") { Url("http://other.test/x") } == "http://other.test/x")
    }

    @Test("Client defaults apply first and the request's own components win")
    func defaultsAndOverrides() throws {
        let client = Client(baseURL: try #require(URL(string: "http://h.test"))) {
            Header.UserAgent("client/1")
            Header.Accept(.json)
            Timeout(30)
        }
        let plain = try client.urlRequest(for: Request { Path("a") })
        #expect(plain.value(forHTTPHeaderField: "User-Agent") == "client/1")
        #expect(plain.value(forHTTPHeaderField: "Accept") == "application/json")
        #expect(plain.timeoutInterval == 30)
        let overridden = try client.urlRequest(
            for: Request {
                Path("a"); Header.UserAgent("mine/2"); Timeout(5)
            })
        #expect(overridden.value(forHTTPHeaderField: "User-Agent") == "mine/2")
        #expect(overridden.timeoutInterval == 5)
        let admin = client.adding { Header.Any(key: "X-Role", value: "admin") }
        #expect(try admin.urlRequest(for: Request { Path("a") }).value(forHTTPHeaderField: "X-Role") == "admin")
    }

    @Test("Body(value) uses the client's JSON encoder, with its key and date strategies")
    func clientEncoder() throws {
        struct NewUser: Encodable, Sendable {
            let firstName: String
            let createdAt: Date
        }
        let client = Client(baseURL: try #require(URL(string: "http://h.test"))) { configuration in
            configuration.encoder.keyEncodingStrategy = .convertToSnakeCase
            configuration.encoder.dateEncodingStrategy = .secondsSince1970
            configuration.encoder.outputFormatting = .sortedKeys
        }
        let request = Request {
            Path("users"); Method(.post); Body(NewUser(firstName: "Ann", createdAt: Date(timeIntervalSince1970: 86400)))
        }
        let built = try client.urlRequest(for: request)
        #expect(
            String(decoding: built.httpBody ?? Data(), as: UTF8.self) == #"{"created_at":86400,"first_name":"Ann"}"#)
        let alone = try Request {
            Url("http://h.test"); Method(.post);
            Body(NewUser(firstName: "Ann", createdAt: Date(timeIntervalSince1970: 0)))
        }.urlRequest()
        #expect(String(decoding: alone.httpBody ?? Data(), as: UTF8.self).contains(#""firstName":"Ann""#))
    }

    @Test("Query values: optionals omitted or bare, numbers, booleans, arrays and dates by strategy")
    func queryValues() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.75)
        let page: Int? = nil
        let text = try url(base: "http://h.test") {
            Query("page", ifPresent: page)
            Query("limit", ifPresent: 10)
            Query("flag", value: nil as String?)
            Query("archived", value: false)
            Query("ratio", value: 0.5)
            Query("id", values: [1, 2])
            Query("at", date: date)
            Query("s", date: date, strategy: .secondsSince1970)
            Query("ms", date: date, strategy: .millisecondsSince1970)
            Query("day", dates: [date], strategy: .formatted("yyyy-MM-dd"))
            Query("none", date: nil)
        }
        #expect(
            text
                == "http://h.test?limit=10&flag&archived=false&ratio=0.5&id=1&id=2&at=2023-11-14T22%3A13%3A20Z"
                + "&s=1700000000&ms=1700000000750&day=2023-11-14")
    }

    @Test("The client's cURL shows the resolved URL with secrets redacted")
    func clientCURL() throws {
        let client = Client(baseURL: try #require(URL(string: "http://h.test/api/"))) {
            Header.Authorization(.bearer("secret"))
        }
        #expect(
            client.cURL(for: Request { Path("me") })
                == "curl 'http://h.test/api/me' -H 'Authorization: <redacted>'")
    }
}

@Suite("Query parameters from an Encodable value")
struct QueryParametersTests {
    struct Search: Encodable, Sendable {
        let searchTerm: String
        let limit: Int
        let ratio: Double
        let exact: Bool
        let page: Int?
        let since: Date
        let ids: [Int]
    }

    @Test("Properties become sorted items, with the client's key and date strategies; nil is left out")
    func encodesProperties() throws {
        let client = Client(baseURL: try #require(URL(string: "http://h.test/api"))) { configuration in
            configuration.encoder.keyEncodingStrategy = .convertToSnakeCase
            configuration.encoder.dateEncodingStrategy = .iso8601
        }
        let search = Search(
            searchTerm: "a&b", limit: 10, ratio: 0.25, exact: true, page: nil, since: Date(timeIntervalSince1970: 0),
            ids: [1, 2])
        let url = try client.urlRequest(
            for: Request {
                Path("search"); QueryParameters(search)
            }
        ).url
        #expect(
            url?.absoluteString
                == "http://h.test/api/search?exact=true&ids=1&ids=2&limit=10&ratio=0.25&search_term=a%26b"
                + "&since=1970-01-01T00%3A00%3A00Z")
    }

    @Test("A nested object is reported when the request is built")
    func rejectsNestedObjects() {
        struct Outer: Encodable, Sendable {
            struct Inner: Encodable, Sendable { let a: Int }
            let inner: Inner
        }
        let error = #expect(throws: RequestError.self) {
            try Request {
                Url("http://h.test"); QueryParameters(Outer(inner: .init(a: 1)))
            }.urlRequest()
        }
        #expect(error?.problems.map(\.message) == [#"the Outer query property "inner" is not a plain value"#])
    }
}
