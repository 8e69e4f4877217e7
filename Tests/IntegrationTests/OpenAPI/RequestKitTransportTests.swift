#if OpenAPI
import Foundation
import HTTPTypes
import OpenAPIRuntime
import RequestKit
import RequestKitOpenAPI
import RequestKitTesting
import Testing

/// A client swift-openapi-generator generated from openapi.yaml (`Client`, in Generated/) sent through
/// RequestKitTransport to a TestServer.
@Suite("OpenAPI transport (swift-openapi-runtime)")
struct RequestKitTransportTests {
    /// The generated client for `server`, through a RequestKit client configured by `configure`.
    private func api(
        _ server: NotesServer, _ configure: (inout RequestKit.Client.Configuration) -> Void = { _ in }
    ) -> Client {
        Client(
            serverURL: server.url,
            transport: RequestKitTransport(client: RequestKit.Client(baseURL: server.url, configure)))
    }

    @Test("An operation with a path parameter and a query answers with its decoded JSON body")
    func pathAndQuery() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let output = try await api(notes).getGreeting(path: .init(name: "ann lee"), query: .init(excited: true))
        #expect(try output.ok.body.json == Components.Schemas.Greeting(message: "Hello, ann lee!"))
        let request = try #require(notes.server.requests.last)
        #expect(request.method == "GET")
        #expect(request.target == "/api/greetings/ann%20lee?excited=true")
        #expect(request.header("Accept") == "application/json")
    }

    @Test("A JSON request body is sent, and a 201's header and body come back")
    func jsonBodyAndHeaders() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let output = try await api(notes).createNote(body: .json(.init(title: "Groceries", tags: ["home", "food"])))
        let created = try output.created
        #expect(created.headers.location == "/api/notes/7")
        #expect(try created.body.json == Components.Schemas.Note(id: 7, title: "Groceries", tags: ["home", "food"]))
        let request = try #require(notes.server.requests.last)
        let sent = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
        #expect(sent?["title"] as? String == "Groceries")
        #expect(sent?["tags"] as? [String] == ["home", "food"])
    }

    @Test("A documented error status is its own case, with its decoded body")
    func documentedError() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let output = try await api(notes).getNote(path: .init(id: 8))
        #expect(try output.notFound.body.json == Components.Schemas.Problem(title: "Not found", detail: "no note 8"))
        let found = try await api(notes).getNote(path: .init(id: 7))
        #expect(try found.ok.body.json == Components.Schemas.Note(id: 7, title: "Groceries", tags: ["home"]))
    }

    @Test("A request body from an AsyncStream is sent whole, and the chunked response body comes back byte for byte")
    func streamedBodies() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let parts = (0..<3).map { index in [UInt8](repeating: UInt8(ascii: "a") + UInt8(index), count: 40_000) }
        let (stream, continuation) = AsyncStream<HTTPBody.ByteChunk>.makeStream()
        for part in parts { continuation.yield(ArraySlice(part)) }
        continuation.finish()
        let output = try await api(notes).echo(body: .binary(HTTPBody(stream, length: .unknown)))
        let body = try output.ok.body.binary
        var received: [UInt8] = []
        for try await chunk in body { received += chunk }
        #expect(received == parts.flatMap { $0 })
        #expect(notes.server.requests.last?.body == Data(parts.flatMap { $0 }))
    }

    @Test("The response body is handed over as it arrives: its first part is read before the server writes the rest")
    func responseStreams() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let body = try await api(notes).getTicks().ok.body.plainText
        var iterator = body.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first.map { String(decoding: $0, as: UTF8.self) } == "first\n")
        notes.firstTickRead.signal()
        var rest = ""
        while let chunk = try await iterator.next() { rest += String(decoding: chunk, as: UTF8.self) }
        #expect(rest == "second\n")
    }

    @Test("The RequestKit client's configuration applies: its default headers and its retries")
    func clientConfiguration() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let attempts = AttemptCounter()
        notes.server.route("/api/greetings/flaky", method: "GET") { _ in
            attempts.next() == 1 ? .text("busy", status: 503) : .json(["message": "at last"])
        }
        let output = try await api(notes) { configuration in
            configuration.defaults = [Header.Any(key: "X-Api-Key", value: "k1")]
            configuration.retryPolicy = RetryPolicy(maxAttempts: 2, baseDelay: 0)
        }.getGreeting(path: .init(name: "flaky"))
        #expect(try output.ok.body.json.message == "at last")
        #expect(attempts.next() == 3)
        #expect(notes.server.requests.map { $0.header("X-Api-Key") } == ["k1", "k1"])
    }

    @Test("A transport failure reaches the caller as ClientError whose underlying error is RequestError")
    func transportFailure() async throws {
        let down = try RefusingPort()
        let api = Client(
            serverURL: down.url("/api"), transport: RequestKitTransport(client: RequestKit.Client(baseURL: down.url())))
        let error = try await #require(throws: ClientError.self) {
            try await api.getGreeting(path: .init(name: "ann"))
        }
        #expect(error.operationID == "getGreeting")
        let underlying = try #require(error.underlyingError as? RequestError)
        #expect(underlying.kind == .transport)
        #expect(underlying.connectionFailure == .connectionRefused)
    }

    @Test("Cancelling the calling task cancels the request, as a cancelled RequestError")
    func cancellation() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        notes.server.route("/api/greetings/slow", method: "GET") { _ in
            TestResponse.json(["message": "too late"]).delayed(by: .seconds(60))
        }
        let call = Task { try await api(notes).getGreeting(path: .init(name: "slow")) }
        #expect(await notes.server.waitForRequests(count: 1, timeout: .seconds(60)))
        call.cancel()
        let error = try await #require(throws: ClientError.self) { try await call.value }
        #expect((error.underlyingError as? RequestError)?.kind == .cancelled)
    }

    @Test("A request body above maxRequestBodyBytes fails before anything is sent")
    func bodyTooLong() async throws {
        let notes = try NotesServer()
        defer { notes.server.stop() }
        let api = Client(
            serverURL: notes.url,
            transport: RequestKitTransport(
                client: RequestKit.Client(baseURL: notes.url), maxRequestBodyBytes: 10))
        let error = try await #require(throws: ClientError.self) {
            try await api.echo(body: .binary(HTTPBody([UInt8](repeating: 1, count: 11))))
        }
        let underlying = try #require(error.underlyingError as? RequestError)
        #expect(underlying.kind == .invalidRequest)
        #expect(underlying.problems.map(\.kind) == [.bodyEncodingFailed])
        #expect(notes.server.requests.isEmpty)
    }
}

/// Counts a route's calls across the server's handler threads; a lock guards the count, so it is safe to share.
private final class AttemptCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The number of this call, from 1.
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
#endif
