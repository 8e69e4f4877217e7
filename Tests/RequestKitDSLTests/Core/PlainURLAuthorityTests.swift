import Foundation
import RequestKitDSL
import RequestKitModel
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Reading a plain URL's scheme, host and port in one pass")
struct PlainURLAuthorityTests {
    @Test(
        "Plain URLs read exactly as Foundation reads them",
        arguments: [
            "http://127.0.0.1:8080/todos", "https://example.com", "HTTPS://Example.COM/a?b#c", "http://h:1?x",
            "http://a_b~c-d.e/", "http://h:65535#frag", "http://h:080/", "https://api.example.com:443/v1/users/42",
            "http://h:99999/", "http://h:0/",
        ])
    func matchesFoundation(_ text: String) throws {
        let url = try #require(URL(string: text))
        let authority = try #require(PlainURLAuthority(url))
        #expect(authority.isSecure == (url.scheme?.lowercased() == "https"))
        #expect(authority.host == url.host)
        #expect(authority.port == url.port)
    }

    @Test(
        "Any other form is left to Foundation",
        arguments: [
            "http://user:pw@h/", "http://h%41/", "http://[::1]:8080/", "http://h:/", "http://h:123456/",
            "ftp://h/", "httpx://h/", "http:/h", "http://", "http://h!/", "https:h", "mailto:someone@example.com",
        ])
    func otherForms(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(PlainURLAuthority(url) == nil)
    }

    @Test("A URL relative to a base is left to Foundation")
    func relative() throws {
        let base = try #require(URL(string: "http://h/api/"))
        let url = try #require(URL(string: "users", relativeTo: base))
        #expect(url.absoluteString == "http://h/api/users")
        #expect(PlainURLAuthority(url) == nil)
    }

    @Test("Built requests check plain URLs as before: a port out of range is a malformed URL, naming it")
    func portOutOfRange() throws {
        let error = try #require(throws: RequestError.self) {
            try Request { Url("http://127.0.0.1:70000/x") }.urlRequest()
        }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.message) == ["the URL \"http://127.0.0.1:70000/x\" has port 70000"])
        let zero = try #require(throws: RequestError.self) { try Request { Url("http://h:0/") }.urlRequest() }
        #expect(zero.problems.map(\.message) == ["the URL \"http://h:0/\" has port 0"])
    }
}
