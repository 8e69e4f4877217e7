#if HTTPTypes
import Foundation
import HTTPTypes
import RequestKit
import RequestKitHTTPTypes
import Testing

@Suite("HTTP types conversions (swift-http-types)")
struct HTTPTypesConversionTests {
    @Test("A request's parts become an HTTPRequest: method, pseudo-header fields and every field in order")
    func requestToHTTPRequest() throws {
        let parts = Request {
            Url("https://user:pw@api.example.com:8443/users/a%20b?x=1")
            Query("page", value: "2")
            Method(.post)
            Header.Any(key: "Accept", value: "application/json")
            Header.Any(key: "X-Tag", value: "one")
            Header.Any(key: "X-Tag", value: "two", appending: true)
        }.parts()
        let request = try HTTPRequest(parts)
        #expect(request.method == .post)
        #expect(request.scheme == "https")
        #expect(request.authority == "api.example.com:8443")
        #expect(request.path == "/users/a%20b?x=1&page=2")
        #expect(
            request.headerFields.map { "\($0.name.rawName): \($0.value)" } == [
                "Accept: application/json", "X-Tag: one", "X-Tag: two",
            ])
    }

    @Test("An HTTPRequest becomes parts that convert back to the same request")
    func httpRequestRoundTrip() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "text/plain"))
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        let original = HTTPRequest(
            method: .delete, scheme: "http", authority: "127.0.0.1:8080", path: "/items/7?force=true",
            headerFields: fields)
        let parts = try RequestParts(original)
        #expect(parts.url?.absoluteString == "http://127.0.0.1:8080/items/7?force=true")
        #expect(parts.method == .delete)
        #expect(parts.headers.values(for: "Cookie") == ["a=1", "b=2"])
        #expect(try HTTPRequest(parts) == original)
    }

    @Test("Requests HTTPRequest cannot hold are typed errors, never traps")
    func invalidRequests() throws {
        let badMethod = Request {
            Url("http://127.0.0.1/")
            Method("BAD METHOD")
        }.parts()
        #expect(throws: RequestError.self) { try HTTPRequest(badMethod) }
        var badValue = Request { Url("http://127.0.0.1/") }.parts()
        badValue.headers.add("X-Line", "a\r\nb")
        let error = try #require(throws: RequestError.self) { try HTTPRequest(badValue) }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidHeaderValue])
        let noURL = HTTPRequest(method: .get, scheme: nil, authority: "example.com", path: "/")
        #expect(throws: RequestError.self) { try RequestParts(noURL) }
    }

    @Test("A response becomes an HTTPResponse and back: status, reason phrase and fields in order")
    func responseRoundTrip() throws {
        let response = Response(
            status: 404, headers: ["Content-Type": "text/plain", "Set-Cookie": "a=1"], body: Data("no".utf8))
        var withRepeat = response
        withRepeat.headers.add("Set-Cookie", "b=2")
        let head = try HTTPResponse(withRepeat)
        #expect(head.status.code == 404)
        #expect(head.status.reasonPhrase == "Not Found")
        #expect(
            head.headerFields.map { "\($0.name.rawName): \($0.value)" } == [
                "Content-Type: text/plain", "Set-Cookie: a=1", "Set-Cookie: b=2",
            ])
        let back = Response(head, body: Data("no".utf8))
        #expect(back.statusCode == 404)
        #expect(back.headers == withRepeat.headers)
        #expect(back.body == Data("no".utf8))
    }

    @Test("A hand-made response with a status of more than three digits is a typed error")
    func invalidStatus() {
        let error = #expect(throws: RequestError.self) { try HTTPResponse(Response(status: 1000)) }
        #expect(error?.kind == .validationFailed)
    }
}
#endif
