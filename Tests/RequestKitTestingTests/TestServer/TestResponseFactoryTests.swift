import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("TestResponse factories")
struct TestResponseFactoryTests {
    private struct Todo: Encodable {
        let id: Int
        let title: String
        let url: String
    }

    @Test("JSON factories produce sorted keys, unescaped slashes and the JSON content type")
    func json() throws {
        let encodable = TestResponse.json(Todo(id: 1, title: "Write", url: "/todos/1"), status: 201)
        #expect(encodable.status == 201)
        #expect(encodable.header("content-type") == "application/json")
        guard case .data(let encoded) = encodable.body else { throw RawHTTPConnection.Failure(description: "body") }
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"id":1,"title":"Write","url":"/todos/1"}"#)

        guard case .data(let object) = TestResponse.json(["b": 1, "a": "x/y", "c": [true]]).body else {
            throw RawHTTPConnection.Failure(description: "body")
        }
        #expect(String(decoding: object, as: UTF8.self) == #"{"a":"x/y","b":1,"c":[true]}"#)
        #expect(TestResponse.json(["a": 1, "b": Double.infinity]).status == 500)
        #expect(TestResponse.json(["a": Double.nan]).status == 500)
    }

    @Test("text, status and redirect factories set the expected status, headers and body")
    func others() throws {
        let text = TestResponse.text("hi", status: 202)
        #expect(text.status == 202 && text.reason == "Accepted")
        #expect(text.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(TestResponse.status(304).headers.isEmpty)
        #expect(TestResponse.redirect(to: "/new", status: 301).header("Location") == "/new")
        #expect(TestResponse(status: 599).reason == "Server Error")
    }
}
