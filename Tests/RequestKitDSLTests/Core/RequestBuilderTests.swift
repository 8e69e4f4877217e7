import Foundation
import RequestKitDSL
import RequestKitModel
import Testing

@Suite("The request builder")
struct RequestBuilderTests {
    enum Format { case json, xml, text }

    struct JSONAPI: ComponentGroup {
        let token: String
        var body: any RequestComponent {
            Header.Accept(.json)
            Header.Authorization(.bearer(token))
        }
    }

    struct APIKey: RequestComponent {
        let key: String
        func apply(to parts: inout RequestParts) {
            if key.isEmpty { parts.report(RequestProblem(.invalidComponent, "the API key is empty")) }
            parts.queryItems.append(QueryItem(name: "api_key", value: key))
        }
    }

    @Test("if, if/else, switch, for-in and if #available all contribute components")
    func controlFlow() throws {
        let token: String? = "t"
        let format = Format.xml
        let request = Request {
            Url("http://h")
            if let token { Header.Authorization(.bearer(token)) }
            if token == nil {
                Header.Any(key: "X-Anonymous", value: "1")
            } else {
                Header.Any(key: "X-Signed", value: "1")
            }
            switch format {
            case .json: Header.Accept(.json)
            case .xml: Header.Accept(.xml)
            case .text: Header.Accept(.text)
            }
            for tag in ["a", "b"] { Query("tag", value: tag) }
            if #available(macOS 13, *) { Query("modern", value: "1") }
        }
        let parts = request.parts()
        #expect(parts.headers["Authorization"] == "Bearer t")
        #expect(parts.headers["X-Signed"] == "1")
        #expect(parts.headers["X-Anonymous"] == nil)
        #expect(parts.headers["Accept"] == "application/xml")
        #expect(parts.queryItems.map(\.value) == ["a", "b", "1"])
    }

    @Test("A component group applies its body where it is written")
    func componentGroups() throws {
        let parts = Request {
            Url("http://h")
            JSONAPI(token: "abc")
            Header.Accept(.text)
        }.parts()
        #expect(parts.headers["Authorization"] == "Bearer abc")
        #expect(parts.headers["Accept"] == "text/plain")
    }

    @Test("Custom components add items and report their own problems")
    func customComponents() throws {
        let url = try Request {
            Url("http://h/weather"); APIKey(key: "k 1")
        }.urlRequest().url
        #expect(url?.absoluteString == "http://h/weather?api_key=k%201")
        let error = try #require(throws: RequestError.self) {
            try Request {
                Url("http://h"); APIKey(key: "")
            }.urlRequest()
        }
        #expect(error.problems == [RequestProblem(.invalidComponent, "the API key is empty")])
    }

    @Test("A thirty-component block builds every component in order")
    func thirtyComponents() throws {
        let request = Request {
            Url("http://h")
            Method(.post)
            Header.Accept(.json)
            Header.ContentType(.json)
            Header.UserAgent("bench")
            Header.AcceptLanguage("en")
            Header.CacheControl(.noCache)
            Header.Any(key: "X-1", value: "1")
            Header.Any(key: "X-2", value: "2")
            Header.Any(key: "X-3", value: "3")
            Header.Any(key: "X-4", value: "4")
            Header.Any(key: "X-5", value: "5")
            Query("a", value: "1")
            Query("b", value: "2")
            Query("c", value: "3")
            Query("d", value: "4")
            Query("e", value: "5")
            Query("f", value: "6")
            Query("g", value: "7")
            Query("h", value: "8")
            Path("v1")
            Path("items")
            Path(7)
            Timeout(10)
            Timeout(20, for: .resource)
            Validate(200..<300)
            Header.Origin("http://o")
            Header.Referer("http://r")
            Header.AcceptEncoding("identity")
            Body("{}")
        }
        let urlRequest = try request.urlRequest()
        #expect(urlRequest.url?.absoluteString == "http://h/v1/items/7?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8")
        #expect(urlRequest.allHTTPHeaderFields?.count == 13)
        #expect(urlRequest.timeoutInterval == 10)
    }

    @Test("adding and withDefaults put components after and before the request's own")
    func addingAndDefaults() throws {
        let base = Request {
            Url("http://h"); Header.Accept(.json)
        }
        #expect(base.adding { Header.Accept(.xml) }.parts().headers["Accept"] == "application/xml")
        #expect(base.withDefaults { Header.Accept(.xml) }.parts().headers["Accept"] == "application/json")
    }
}
