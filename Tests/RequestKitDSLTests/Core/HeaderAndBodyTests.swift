import Foundation
import RequestKitDSL
import RequestKitModel
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Headers and bodies")
struct HeaderAndBodyTests {
    private func build(@RequestBuilder _ content: () -> any RequestComponent) throws -> URLRequest {
        try Request(content).urlRequest()
    }

    @Test("Typed headers write the exact values")
    func typedHeaders() throws {
        let request = try build {
            Url("http://h")
            Header.Accept(.json, .custom("text/plain;q=0.5"))
            Header.Authorization(.basic(username: "ann", password: "s3cret"))
            Header.CacheControl(.noCache, .maxAge(60))
            Header.Host("api.example.com", port: 8080)
            Header.Origin("https://app.example.com")
            Header.Referer("https://example.com/page")
            Header.UserAgent(.requestKit)
            Header.AcceptLanguage("en-GB, en;q=0.8")
            Header.AcceptEncoding("gzip")
            Header.Any(.requestID, "42")
        }
        #expect(request.value(forHTTPHeaderField: "Accept") == "application/json, text/plain; q=0.5")
        #expect(request.value(forHTTPHeaderField: "Authorization") == "Basic YW5uOnMzY3JldA==")
        #expect(request.value(forHTTPHeaderField: "Cache-Control") == "no-cache, max-age=60")
        #expect(request.value(forHTTPHeaderField: "Host") == "api.example.com:8080")
        #expect(request.value(forHTTPHeaderField: "Origin") == "https://app.example.com")
        #expect(request.value(forHTTPHeaderField: "Referer") == "https://example.com/page")
        #expect(request.value(forHTTPHeaderField: "User-Agent") == "RequestKit/\(RequestKitInfo.version)")
        #expect(request.value(forHTTPHeaderField: "Accept-Language") == "en-GB, en;q=0.8")
        #expect(request.value(forHTTPHeaderField: "Accept-Encoding") == "gzip")
        #expect(request.value(forHTTPHeaderField: "X-Request-ID") == "42")
    }

    @Test("Bearer and custom authorization schemes")
    func authorizationSchemes() throws {
        #expect(Header.Authorization.Credentials.bearer("t0k").headerValue == "Bearer t0k")
        #expect(Header.Authorization.Credentials.custom(scheme: "Token", credentials: "k").headerValue == "Token k")
    }

    @Test("A later header with the same name, in any case, replaces the earlier one unless it appends")
    func headerReplacement() throws {
        let parts = Request {
            Url("http://h")
            Header.Any(key: "X-Mode", value: "first")
            Header.Any(key: "x-mode", value: "second")
            Header.Any(key: "X-List", value: "a")
            Header.Any(key: "X-List", value: "b", appending: true)
        }.parts()
        #expect(parts.headers.values(for: "X-MODE") == ["second"])
        #expect(parts.headers.values(for: "x-list") == ["a", "b"])
    }

    @Test("Content-Type follows the body unless the request sets one")
    func contentTypes() throws {
        #expect(
            try build {
                Url("http://h"); Method(.post); Body(Data([1]))
            }
            .value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
        #expect(
            try build {
                Url("http://h"); Method(.post); Body("x")
            }
            .value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        #expect(
            try build {
                Url("http://h"); Method(.post); Body(["a": 1])
            }
            .value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(
            try build {
                Url("http://h"); Method(.post); Body(form: ["a": "1"])
            }
            .value(forHTTPHeaderField: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(
            try build {
                Url("http://h"); Method(.post); Header.ContentType(.xml); Body("<a/>")
            }
            .value(forHTTPHeaderField: "Content-Type") == "application/xml")
    }

    @Test("A string body is sent raw, not JSON-quoted")
    func rawStringBody() throws {
        let request = try build {
            Url("http://h"); Method(.put); Body("{\"raw\": \"yes\"}")
        }
        #expect(request.httpBody == Data("{\"raw\": \"yes\"}".utf8))
    }

    @Test("A dictionary or array literal with mixed values is sent as JSON, keys in the literal's order")
    func heterogeneousLiteralBody() throws {
        let object = try build {
            Url("http://h"); Method(.post); Body(["title": "x", "count": 1, "tags": ["a", "b"], "draft": nil])
        }
        #expect(object.httpBody == Data(#"{"title":"x","count":1,"tags":["a","b"],"draft":null}"#.utf8))
        #expect(object.value(forHTTPHeaderField: "Content-Type") == "application/json")
        let array = try build {
            Url("http://h"); Method(.post); Body([1, "two", true])
        }
        #expect(array.httpBody == Data(#"[1,"two",true]"#.utf8))
        let single = try build {
            Url("http://h"); Method(.post); Body(["title": "x"])
        }
        #expect(single.httpBody == Data(#"{"title":"x"}"#.utf8))
    }

    @Test("An Encodable body uses the encoder's key and date strategies")
    func encodableBody() throws {
        struct NewUser: Encodable, Sendable {
            let firstName: String
            let joined: Date
        }
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let request = try build {
            Url("http://h")
            Method(.post)
            Body(NewUser(firstName: "Ann", joined: Date(timeIntervalSince1970: 10)), encoder: encoder)
        }
        let body = try #require(request.httpBody)
        #expect(String(decoding: body, as: UTF8.self) == #"{"first_name":"Ann","joined":10}"#)
    }

    @Test("Form bodies encode reserved characters and spaces as plus")
    func formBody() throws {
        let request = try build {
            Url("http://h")
            Method(.post)
            Body(form: [("name", "Ann Lee"), ("q", "a&b=c+d"), ("emoji", "\u{1F600}")])
        }
        #expect(
            request.httpBody == Data("name=Ann+Lee&q=a%26b%3Dc%2Bd&emoji=%F0%9F%98%80".utf8))
    }

    @Test("Text in another encoding, and text the encoding cannot hold")
    func encodedText() throws {
        let request = try build {
            Url("http://h"); Method(.post); Body("caf\u{e9}", encoding: .isoLatin1)
        }
        #expect(request.httpBody == Data([0x63, 0x61, 0x66, 0xE9]))
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=iso-8859-1")
        let error = try #require(throws: RequestError.self) {
            try build {
                Url("http://h"); Method(.post); Body("\u{1F600}", encoding: .ascii)
            }
        }
        #expect(error.problems.map(\.kind) == [.bodyEncodingFailed])
    }

    @Test("Timeout sets the idle timeout on the Foundation request")
    func timeouts() throws {
        #expect(try build { Url("http://h") }.timeoutInterval == 60)
        #expect(
            try build {
                Url("http://h"); Timeout(2.5)
            }.timeoutInterval == 2.5)
        let parts = Request {
            Url("http://h"); Timeout(9, for: .resource)
        }.parts()
        #expect(parts.resourceTimeout == 9)
        #expect(parts.timeout == nil)
    }

    @Test("Timeout takes a Duration as well as seconds")
    func durationTimeouts() throws {
        #expect(
            try build {
                Url("http://h"); Timeout(.seconds(5))
            }.timeoutInterval == 5)
        #expect(
            try build {
                Url("http://h"); Timeout(.milliseconds(1500))
            }.timeoutInterval == 1.5)
        let parts = Request {
            Url("http://h"); Timeout(.seconds(90), for: .resource)
        }.parts()
        #expect(parts.resourceTimeout == 90)
        let error = try #require(throws: RequestError.self) {
            try build {
                Url("http://h"); Timeout(.zero)
            }
        }
        #expect(error.problems.map(\.message) == ["a timeout must be a positive number, not 0.0"])
    }
}
