import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Credentials, multipart names and JSON keys", .wallClock)
struct SmallHardeningTests {
    @Test("A basic-auth user name with `:` is a request problem")
    func basicColon() {
        let error = #expect(throws: RequestError.self) {
            try Request {
                Url("http://h.test"); Header.Authorization(.basic(username: "a:b", password: "c"))
            }
            .urlRequest()
        }
        #expect(error?.problems.map(\.message) == ["a basic-auth user name cannot contain \":\""])
    }

    @Test("URL credentials become Basic auth on both transports, and leave the URL", arguments: WireTransport.all)
    func urlCredentials(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let port = try #require(server.url("/").port)
        let response = try await Request {
            Url("http://ann%40x:p%20w@127.0.0.1:\(port)/basic-auth/ann@x/p%20w")
            Using(transport.transport)
        }.send()
        #expect(response.statusCode == 200)
        let received = try #require(server.requests.last)
        #expect(received.header("Authorization") == "Basic " + Data("ann@x:p w".utf8).base64EncodedString())
        #expect(received.target == "/basic-auth/ann@x/p%20w")
    }

    @Test("URL credentials with `:` in the user or with an Authorization header are problems")
    func urlCredentialProblems() {
        let colon = #expect(throws: RequestError.self) {
            try Request { Url("http://a%3Ab:c@h.test/") }.urlRequest()
        }
        #expect(
            colon?.problems.map(\.message) == ["the user name in the URL contains \":\", which basic auth cannot send"])
        let both = #expect(throws: RequestError.self) {
            try Request {
                Url("http://a:b@h.test/"); Header.Authorization(.bearer("t"))
            }.urlRequest()
        }
        #expect(
            both?.problems.map(\.message) == [
                "the URL has credentials and the request sets Authorization; keep one of them"
            ])
        #expect(!(both?.description.contains(":b@") ?? true))
    }

    @Test("Multipart names escape NUL, every control character and backslash, as well as quotes and line breaks")
    func multipartNames() throws {
        let form = Form {
            DataPart("a\u{0}b\\c\"d\r\ne", Data("x".utf8), filename: "f\\\u{0}\u{10}\u{7F}.txt", type: .text)
        }
        let request = try Request {
            Url("http://h.test"); Method(.post); form
        }.urlRequest()
        let body = String(decoding: request.httpBody ?? Data(), as: UTF8.self)
        #expect(
            body.contains(
                "Content-Disposition: form-data; name=\"a%00b%5Cc%22d%0D%0Ae\"; filename=\"f%5C%00%10%7F.txt\"\r\n")
        )
    }

    @Test("JSON object keys are compared by their exact code points")
    func jsonKeys() throws {
        let json = try Json(parsing: #"{"\u00e9":1,"e\u0301":2,"\u00e9":3}"#)
        #expect(json.entries?.map(\.key) == ["\u{e9}", "e\u{301}"])
        #expect(json["\u{e9}"] == 3)
        #expect(json["e\u{301}"] == 2)
        #expect(json.serializedString() == "{\"\u{e9}\":3,\"e\u{301}\":2}")
        var large = "{"
        for index in 0..<100 { large += "\"k\(index)\":\(index)," }
        large += #""\u00e9":1,"e\u0301":2}"#
        let big = try Json(parsing: large)
        #expect(big.entries?.count == 102)
        #expect(big["e\u{301}"] == 2)
        #expect(big["\u{e9}"] == 1)
    }
}
