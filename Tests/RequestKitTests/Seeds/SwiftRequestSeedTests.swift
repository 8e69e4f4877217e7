import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

/// Every code example of swift-request's README, as written there, with a local server in place of
/// jsonplaceholder.typicode.com and the `...` placeholders filled in with code that records what ran.
///
/// Two examples cannot compile as written, each with a clear compiler message; both are shown here in the form
/// that compiles, and README.md's "Coming from swift-request" lists them:
/// - `Json("{\"firstName\":\"Carson\"}")` parses and so needs `try` ("call can throw but is not marked with
///   'try'"), as it did in swift-request, whose `Json(String)` throws too.
/// - `.update(every: 10).update(publisher: …).call()`: `update` starts the updates and returns their handle, so
///   there is no second `update` or `call()` to chain ("value of type 'RequestHandle' has no member 'update'").
@Suite("swift-request's README, verbatim", .wallClock)
struct SwiftRequestSeedTests {
    /// A server with the routes the README's examples use: todos, posts and a body echo.
    private func makeServer() throws -> TestServer {
        let server = try TestServer()
        server.route("/todos") { _ in
            .json([
                ["title": "first", "completed": false, "id": 7, "userId": 1],
                ["title": "second", "completed": true, "id": 8, "userId": 1],
            ])
        }
        server.route("/todos/{id}") { request in
            .json(["title": "one", "completed": false, "id": Int(request.pathParameters["id"] ?? "") ?? 0, "userId": 1])
        }
        server.route("/posts", method: "POST") { request in .json(request.body) }
        server.route("/posts") { _ in .json([["id": 1]]) }
        server.route("/todo") { _ in .json(["ok": true]) }
        return server
    }

    @Test("The declarative way: onData receives the body, onError is not called")
    func declarativeWay() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let log = Log()
        let base = server.url("").absoluteString
        await Request {
            Url("\(base)/todo")
            Header.Accept(.json)
        }
        .onData { data in
            log.add("data \(String(decoding: data, as: UTF8.self))")
        }
        .onError { error in
            log.add("error \(error)")
        }
        .call()
        .wait()
        #expect(log.entries == [#"data {"ok":true}"#])
        #expect(server.requests.last?.header("Accept") == "application/json")
    }

    @Test("A POST with Body(Json([...]).stringified) sends the JSON text, not null")
    func postWithStringifiedJson() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let base = server.url("").absoluteString
        let request = Request {
            Url("\(base)/posts")
            Method(.post)
            Header.ContentType(.json)
            Body(
                Json([
                    "title": "foo",
                    "body": "bar",
                    "usedId": 1,
                ]).stringified)
        }
        let response = try await request.send()
        #expect(response.statusCode == 200)
        #expect(server.requests.last?.body == Data(#"{"body":"bar","title":"foo","usedId":1}"#.utf8))
        #expect(server.requests.last?.header("Content-Type") == "application/json")
    }

    @Test("Every building block of the README builds the request it names")
    func buildingBlocks() throws {
        let myJson = try Json(#"{"a":1}"#)
        let components: [any RequestComponent] = [
            Url("https://example.com"),
            Url(protocol: .secure, url: "example.com"),
            Method(.get),
            Header.Any(key: "Custom-Header", value: "value123"),
            Header.Accept(.json),
            Header.Authorization(.basic(username: "carsonkatri", password: "password123")),
            Header.CacheControl(.noCache),
            Header.ContentLength(16),
            Header.ContentType(.xml),
            Header.Host("en.example.com", port: "8000"),
            Header.Origin("www.example.com"),
            Header.Referer("redirectfrom.example.com"),
            Header.UserAgent(.firefoxMac),
            Query(["key": "value"]),
            Body(["key": "value"]),
            Body("myBodyContent"),
            Body(myJson),
            Timeout(60),
            Timeout(60, for: .request),
            Timeout(30, for: .resource),
        ]
        #expect(components.count == 20)

        let hosted = try Request {
            Url(protocol: .secure, url: "example.com")
            Method(.post)
            Header.Host("en.example.com", port: "8000")
            Query(["key": "value"])
            Body(myJson)
        }.urlRequest()
        #expect(hosted.url?.absoluteString == "https://example.com?key=value")
        #expect(hosted.value(forHTTPHeaderField: "Host") == "en.example.com:8000")
        #expect(hosted.httpBody == Data(#"{"a":1}"#.utf8))

        let keyValue = try Request {
            Url("https://example.com"); Method(.post); Body(["key": "value"])
        }.urlRequest()
        #expect(keyValue.httpBody == Data(#"{"key":"value"}"#.utf8))
        let text = try Request {
            Url("https://example.com"); Method(.post); Body("myBodyContent")
        }.urlRequest()
        #expect(text.httpBody == Data("myBodyContent".utf8))
    }

    @Test("A Host port that is not a number is a request problem, not a header")
    func invalidHostPort() {
        #expect {
            try Request {
                Url("https://example.com"); Header.Host("en.example.com", port: "80a0")
            }.urlRequest()
        } throws: { error in
            let problems = (error as? RequestError)?.problems ?? []
            return problems.map(\.kind) == [.invalidHeaderValue]
                && problems.first?.message == #"the Host port "80a0" is not a number in 0...65535"#
        }
        #expect(throws: RequestError.self) {
            try Request {
                Url("https://example.com"); Header.Host("en.example.com", port: "65536")
            }.urlRequest()
        }
    }

    @Test("AnyRequest<[Todo]>.onObject hands the decoded todos")
    func codable() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let base = server.url("").absoluteString
        let log = Log()
        struct Todo: Codable {
            let title: String
            let completed: Bool
            let id: Int
            let userId: Int
        }
        let request = AnyRequest<[Todo]> {
            Url("\(base)/todos")
        }
        .onObject { todos in log.add("todos \(todos.map(\.id))") }
        await request.call().wait()
        #expect(log.entries == ["todos [7, 8]"])
    }

    @Test("RequestGroup runs every request and onData receives each index and body")
    func requestGroup() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let base = server.url("").absoluteString
        let log = Log()
        await RequestGroup {
            Request {
                Url("\(base)/todos")
            }
            Request {
                Url("\(base)/posts")
            }
            Request {
                Url("\(base)/todos/1")
            }
        }
        .onData { (index, data) in
            log.add("\(index) \(data.count > 0)")
        }
        .call()
        .wait()
        #expect(log.entries.sorted() == ["0 true", "1 true", "2 true"])
        #expect(server.requests.map(\.path).sorted() == ["/posts", "/todos", "/todos/1"])
    }

    @Test("RequestChain with Request.chained builds each request from the earlier step's data")
    func requestChain() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let base = server.url("").absoluteString
        let log = Log()
        await RequestChain {
            Request.chained { (data, errors) in
                Url("\(base)/todos")
            }
            Request.chained { (data, errors) in
                let json = Json(data[0]!)
                return Url("\(base)/todos/\(json?[0]["id"].int ?? 0)")
            }
        }
        .call { (data, errors) in
            log.add("\(data.count) \(errors.compactMap { $0 }.count) \(Json(data[1])?.id.int ?? -1)")
        }
        .wait()
        #expect(server.requests.map(\.path) == ["/todos", "/todos/7"])
        #expect(log.entries == ["2 0 7"])
    }

    @Test("update(publisher:) sends now and once per element of any AsyncSequence, then stops when it ends")
    func updateWithAsyncSequence() async throws {
        let server = try makeServer()
        defer { server.stop() }
        let base = server.url("").absoluteString
        let log = Log()
        let (ticks, tick) = AsyncStream.makeStream(of: Int.self)
        tick.yield(1)
        tick.yield(2)
        tick.finish()
        await Request {
            Url("\(base)/todo")
        }
        .onData { _ in log.add("data") }
        .update(publisher: ticks)
        .wait()
        #expect(log.entries == ["data", "data", "data"])
        #expect(server.requests.count == 3)
    }

    @Test("Json parses text and Data, and reads by subscript and by dynamic member")
    func json() throws {
        let myJson = try Json("{\"firstName\":\"Carson\"}")
        let fromData = Json("{\"firstName\":\"Carson\"}".data(using: .utf8))
        let myComplexJson = try Json(#"[{"nestedJson": {"id": 3}}]"#)
        #expect(myJson["firstName"].string == "Carson")
        #expect(myComplexJson[0]["nestedJson"]["id"].int == 3)
        #expect(myJson.firstName.string == "Carson")
        #expect(myComplexJson[0].nestedJson.id.int == 3)
        #expect(fromData?.firstName.string == "Carson")
        #expect(fromData == myJson)

        let numbers = try Json("[1, 2]")
        #expect(numbers.array?.count == 2)
        #expect(numbers == [1, 2])
        #expect(Json(Data("not json".utf8)) == nil)
        let noData: Data? = nil
        #expect(Json(noData) == nil)
    }

    @available(*, deprecated, message: "reads swift-request's deprecated spellings")
    @Test("The swift-request accessor spellings read what the RequestKit accessors read")
    func seedAccessorSpellings() throws {
        let json = try Json(#"{"s": "x", "i": 2, "d": 0.5, "b": true, "a": [1]}"#)
        #expect(json.s.stringOptional == "x")
        #expect(json.i.intOptional == 2)
        #expect(json.d.doubleOptional == 0.5)
        #expect(json.b.boolOptional == true)
        #expect(json.a.arrayOptional == [Json(1)])
        #expect(json.i.stringOptional == nil)
        #expect(json.stringified == #"{"s":"x","i":2,"d":0.5,"b":true,"a":[1]}"#)
    }

    @Test("Keys that Json's members shadow are reached with the subscript")
    func shadowedKeys() throws {
        let json = try Json(#"{"description": "lamp", "string": "x", "entries": 2, "count": 3}"#)
        #expect(json["description"].string == "lamp")
        #expect(json["string"].string == "x")
        #expect(json["entries"].int == 2)
        #expect(json.count.int == 3)
        #expect(json.string == nil)
        #expect(json.description == #"{"description":"lamp","string":"x","entries":2,"count":3}"#)
    }
}

@Suite("Decoding errors read as a person writes them", .wallClock)
struct DecodingErrorWordingTests {
    private struct Todo: Decodable { let id: Int }

    @Test("A value of the wrong type is \"not an Int\", with the key")
    func article() throws {
        let response = Response(status: .ok, body: Data(#"{"id":"seven"}"#.utf8))
        #expect {
            _ = try response.decode(Todo.self)
        } throws: { error in
            (error as? RequestError)?.description.contains(#"not an Int at "id""#) == true
        }
    }
}
