import RequestKit
import Testing

@Test("The library reports a semantic version")
func versionIsSemantic() {
    #expect(RequestKitInfo.version.split(separator: ".").count == 3)
}

@Test("The module name qualifies the library's types, since no type is named RequestKit")
func moduleNameQualifiesTypes() throws {
    let request = RequestKit.Request {
        RequestKit.Url("http://127.0.0.1:8080/todos")
        RequestKit.Header.Accept(.json)
    }
    let built = try request.urlRequest()
    #expect(built.url?.absoluteString == "http://127.0.0.1:8080/todos")
    #expect(built.value(forHTTPHeaderField: "Accept") == "application/json")
}
