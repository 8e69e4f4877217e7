import Foundation
import RequestKitDSL
import RequestKitModel
import Testing

@Suite("Building the URL")
struct URLBuildingTests {
    private func url(@RequestBuilder _ content: () -> any RequestComponent) throws -> String {
        try #require(try Request(content).urlRequest().url?.absoluteString)
    }

    @Test("Url accepts a string, a Foundation URL and a scheme with the rest")
    func urlForms() throws {
        #expect(try url { Url("http://127.0.0.1:8080/todos") } == "http://127.0.0.1:8080/todos")
        let foundation = try #require(URL(string: "https://example.com/a"))
        #expect(try url { Url(foundation) } == "https://example.com/a")
        #expect(try url { Url(protocol: .https, url: "example.com/api") } == "https://example.com/api")
        #expect(try url { Url(protocol: .http, url: "127.0.0.1:9/x") } == "http://127.0.0.1:9/x")
    }

    @Test("Path appends percent-encoded segments; a slash inside a value is encoded")
    func pathSegments() throws {
        #expect(
            try url {
                Url("http://h/api"); Path("users", 42, "posts")
            } == "http://h/api/users/42/posts")
        #expect(
            try url {
                Url("http://h/api/"); Path("files", "a/b c")
            } == "http://h/api/files/a%2Fb%20c")
        #expect(
            try url {
                Url("http://h"); Path("caf\u{e9}", "?#")
            } == "http://h/caf%C3%A9/%3F%23")
        #expect(
            try url {
                Url("http://h/a?x=1"); Path("b")
            } == "http://h/a/b?x=1")
    }

    @Test("Path templates fill placeholders with encoded values and report missing ones")
    func pathTemplates() throws {
        #expect(
            try url {
                Url("http://h"); Path(template: "/profile/{user_id}/posts", ["user_id": "ann/lee"])
            }
                == "http://h/profile/ann%2Flee/posts")
        let error = try #require(throws: RequestError.self) {
            try Request {
                Url("http://h"); Path(template: "/a/{id}/{rev}", ["id": 1])
            }.urlRequest()
        }
        #expect(error.problems.map(\.message) == ["the path template \"/a/{id}/{rev}\" has no value for {rev}"])
    }

    @Test("Query values are encoded per RFC 3986: reserved characters, space as %20, non-ASCII")
    func queryEncoding() throws {
        let built = try url {
            Url("http://h/search")
            Query("q", value: "a+b&c=d/e?f#g h")
            Query("name", value: "Zo\u{eb}")
        }
        #expect(built == "http://h/search?q=a%2Bb%26c%3Dd%2Fe%3Ff%23g%20h&name=Zo%C3%AB")
    }

    @Test("Query components accumulate in order after a query already in the Url")
    func queryAccumulates() throws {
        let built = try url {
            Url("http://h/list?existing=1")
            Query("b", value: "2")
            Query([("c", "3"), ("flag", nil)])
            Query(["z": "26", "a": "1"])
            Query("tag", values: ["x", "y"])
            Query("page", value: 2)
            Query("archived", value: false)
        }
        #expect(built == "http://h/list?existing=1&b=2&c=3&flag&a=1&z=26&tag=x&tag=y&page=2&archived=false")
    }

    @Test("A nil value gives a bare key")
    func bareKey() throws {
        #expect(
            try url {
                Url("http://h"); Query("flag", value: nil as String?)
            } == "http://h?flag")
    }

    @Test("A fragment stays at the end")
    func fragmentKept() throws {
        #expect(
            try url {
                Url("http://h/p#top"); Query("a", value: "1")
            } == "http://h/p?a=1#top")
    }
}
