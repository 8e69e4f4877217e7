import Foundation
import RequestKitTesting
import Testing

@testable import RequestKit
@testable import RequestKitModel

/// A ``RequestError`` keeps its fields in one shared allocation; each error still behaves as a value.
@Suite("Request errors are values")
struct RequestErrorCopyTests {
    @Test("Naming the request on a copy of an error leaves the original as it was")
    func namingACopy() {
        let original = RequestError.timedOut("the total deadline of 2 s passed")
        let named = original.describingRequest("GET http://127.0.0.1:9/slow")
        #expect(original.request == nil)
        #expect(named.request == "GET http://127.0.0.1:9/slow")
        #expect(named.kind == .timedOut)
        #expect(named.detail == "the total deadline of 2 s passed")
        #expect(original.description == "Timed out (the total deadline of 2 s passed)")
        #expect(named.description == "Timed out (the total deadline of 2 s passed) for GET http://127.0.0.1:9/slow")
    }

    @Test("Changing what a copy redacts leaves the original's description as it was")
    func redactingACopy() {
        let response = Response(status: .notFound, body: Data("no".utf8))
        let original = RequestError(
            kind: .unacceptableStatus, response: response, request: "GET http://127.0.0.1:9/x?session=abc")
        var copy = original
        copy.redaction = SensitiveData(queryNames: ["session"])
        #expect(
            original.description
                == "Unacceptable status 404 Not Found for GET http://127.0.0.1:9/x?session=abc; body: no")
        #expect(
            copy.description
                == "Unacceptable status 404 Not Found for GET http://127.0.0.1:9/x?session=<redacted>; body: no")
        #expect(copy.statusCode == 404)
        #expect(copy.responseBody == Data("no".utf8))
    }
}

/// A request's handlers are stored once for all its copies; adding one to a copy still changes that copy alone.
@Suite("Request handlers are values")
struct RequestCallbackCopyTests {
    @Test("Handlers added to two copies of one request run only for their own copy")
    func copiesKeepTheirOwnHandlers() async {
        let mock = MockTransport { _ in Response(status: HTTPStatus(code: 202)) }
        let seen = SeenStatuses()
        let base = Request {
            Url("http://127.0.0.1:9/x")
            Using(mock)
        }.onStatusCode { seen.add("base \($0)") }
        let first = base.onStatusCode { seen.add("first \($0)") }
        let second = base.onStatusCode { seen.add("second \($0)") }
        await first.call().wait()
        #expect(seen.all == ["base 202", "first 202"])
        await second.call().wait()
        #expect(seen.all == ["base 202", "first 202", "base 202", "second 202"])
        await base.call().wait()
        #expect(seen.all == ["base 202", "first 202", "base 202", "second 202", "base 202"])
    }
}

/// What the handlers of ``RequestCallbackCopyTests`` saw, in order.
private final class SeenStatuses: @unchecked Sendable {
    // Safe: `seen` is only touched while holding `lock`.
    private let lock = NSLock()
    private var seen: [String] = []
    var all: [String] { lock.withLock { seen } }
    func add(_ entry: String) { lock.withLock { seen.append(entry) } }
}
