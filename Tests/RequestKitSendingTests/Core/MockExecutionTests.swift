import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitSending
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Sending through an injected transport")
struct MockExecutionTests {
    struct Todo: Codable, Sendable, Equatable {
        let id: Int
        let title: String
    }

    struct APIProblem: Decodable, Sendable {
        let detail: String
    }

    private func json(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    @Test("send() returns any status without validating; data() validates")
    func sendDoesNotValidate() async throws {
        let mock = MockTransport()
        mock.enqueue(Response(status: .notFound, body: Data("gone".utf8)))
        mock.enqueue(Response(status: .notFound, body: Data("gone".utf8)))
        let request = Request {
            Url("http://api.test/x"); Using(mock)
        }
        #expect(try await request.send().statusCode == 404)
        let error = try await #require(throws: RequestError.self) { try await request.data() }
        #expect(error.kind == .unacceptableStatus)
        #expect(error.statusCode == 404)
        #expect(error.responseBody == Data("gone".utf8))
        #expect(error.description == "Unacceptable status 404 Not Found for GET http://api.test/x; body: gone")
    }

    @Test("value() decodes with the request's decoder")
    func typedValue() async throws {
        let mock = MockTransport { _ in Response(status: .ok, body: Data(#"[{"id":1,"title":"a"}]"#.utf8)) }
        let todos = try await AnyRequest<[Todo]> {
            Url("http://api.test/todos"); Using(mock)
        }.value()
        #expect(todos == [Todo(id: 1, title: "a")])
        #expect(mock.requests.map { $0.url?.absoluteString } == ["http://api.test/todos"])
    }

    @Test("A decoding failure keeps the decoder's error and the body")
    func decodingFailure() async throws {
        let mock = MockTransport { _ in Response(status: .ok, body: Data(#"{"id":"x"}"#.utf8)) }
        let error = try await #require(throws: RequestError.self) {
            try await AnyRequest<Todo> {
                Url("http://api.test/t"); Using(mock)
            }.value()
        }
        #expect(error.kind == .decoding)
        #expect(error.underlyingError is DecodingError)
        #expect(error.responseBody == Data(#"{"id":"x"}"#.utf8))
        #expect(error.description.hasPrefix("Could not decode Todo for GET http://api.test/t: "))
    }

    @Test("A named error type is decoded from an unacceptable response")
    func decodedErrorBody() async throws {
        let mock = MockTransport { _ in
            Response(status: 422, body: Data(#"{"detail":"title is required"}"#.utf8))
        }
        let error = try await #require(throws: RequestError.self) {
            try await AnyRequest<Todo> {
                Url("http://api.test/t"); Using(mock)
            }
            .decodingErrorBody(as: APIProblem.self)
            .value()
        }
        #expect(error.statusCode == 422)
        #expect(error.errorBody(as: APIProblem.self)?.detail == "title is required")
    }

    @Test("Validate accepts other statuses, custom checks and content types")
    func validation() async throws {
        let mock = MockTransport { _ in Response(status: .notModified, headers: ["Content-Type": "text/html"]) }
        let accepted = try await Request {
            Url("http://api.test"); Using(mock); Validate([200, 304])
        }.data()
        #expect(accepted.isEmpty)
        let anything = try await Request {
            Url("http://api.test"); Using(mock); Validate(.none)
        }.send()
        #expect(anything.statusCode == 304)
        let rejected = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://api.test"); Using(mock); Validate(.none); Validate(contentType: .json)
            }
            .data()
        }
        #expect(rejected.kind == .validationFailed)
        #expect(rejected.description.contains("expected Content-Type application/json, got text/html"))
        let custom = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://api.test"); Using(mock); Validate(.none); Validate { _ in false }
            }.data()
        }
        #expect(custom.kind == .validationFailed)
    }

    @Test("Callbacks: status codes first, then data, string and objects on success")
    func successCallbacks() async throws {
        let mock = MockTransport { _ in Response(status: .ok, body: Data(#"{"id":7,"title":"t"}"#.utf8)) }
        let log = Log()
        let handle = AnyRequest<Todo> {
            Url("http://api.test"); Using(mock)
        }
        .onStatusCode { log.add("status \($0)") }
        .onData { log.add("data \($0.count)") }
        .onString { log.add("string \($0.prefix(6))") }
        .onObject { log.add("object \($0.id)") }
        .onError { log.add("error \($0.kind)") }
        .call()
        await handle.wait()
        #expect(log.entries == ["status 200", "data 20", "string {\"id\":", "object 7"])
    }

    @Test("A 404 never reaches onData, and a decode failure reaches onError")
    func failureCallbacks() async throws {
        let notFound = MockTransport { _ in Response(status: .notFound) }
        let log = Log()
        await Request {
            Url("http://api.test"); Using(notFound)
        }
        .onStatusCode { log.add("status \($0)") }
        .onData { _ in log.add("data") }
        .onError { log.add("error \($0.kind) \($0.statusCode ?? 0)") }
        .call().wait()
        #expect(log.entries == ["status 404", "error unacceptableStatus 404"])

        let garbage = MockTransport { _ in Response(status: .ok, body: Data("nope".utf8)) }
        let decodeLog = Log()
        await AnyRequest<Todo> {
            Url("http://api.test"); Using(garbage)
        }
        .onObject { _ in decodeLog.add("object") }
        .onError { decodeLog.add("error \($0.kind)") }
        .call().wait()
        #expect(decodeLog.entries == ["error decoding"])
    }

    @Test("Callbacks can run on a given queue")
    func callbacksOnQueue() async throws {
        let mock = MockTransport { _ in Response(status: .ok) }
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "callbacks")
        let log = Log()
        await Request {
            Url("http://api.test"); Using(mock)
        }
        .onData { _ in log.add(DispatchQueue.getSpecific(key: key) ?? "elsewhere") }
        .call(on: queue).wait()
        #expect(log.entries == ["callbacks"])
    }

    @Test("Transport errors pass through with the request named")
    func transportErrors() async throws {
        let mock = MockTransport()
        mock.enqueue(RequestError.timedOut("simulated"))
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://api.test/slow"); Using(mock)
            }.send()
        }
        #expect(error.isTimeout)
        #expect(error.description == "Timed out (simulated) for GET http://api.test/slow")
    }

    @Test("An invalid request never reaches the transport")
    func invalidNeverSent() async throws {
        let mock = MockTransport { _ in Response(status: .ok) }
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://api.test"); Using(mock); Header.Any(key: "X", value: "\r\n")
            }.send()
        }
        #expect(error.kind == .invalidRequest)
        #expect(mock.requests.isEmpty)
    }

    @Test("The total deadline fails a slow transport with a timeout")
    func resourceDeadline() async throws {
        let mock = MockTransport { _ in
            try await Task.sleep(nanoseconds: 60_000_000_000)
            return Response(status: .ok)
        }
        let clock = TestClock()
        let task = Task {
            try await Request {
                Url("http://api.test"); Using(mock); Timeout(0.2, for: .resource); UseClock(clock)
            }.send()
        }
        #expect(await clock.advanceToNextSleeper() == .milliseconds(200))
        let error = try await #require(throws: RequestError.self) { try await task.value }
        #expect(error.isTimeout)
        #expect(error.description.contains("total deadline of 0.2 s"))
    }
}
