import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport
@testable import RequestKitURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("URLSession adapter", .timeLimit(.minutes(5)), .wallClock)
struct URLSessionAdapterTests {
    /// The two ways to send through the adapter, which must behave the same apart from buffering.
    enum Mode: String, CaseIterable, CustomTestStringConvertible {
        case send, stream
        var testDescription: String { rawValue }
    }

    /// Sends `request` through a fresh `URLSessionTransport` and returns the response with its whole body.
    private func exchange(_ request: URLRequest, _ mode: Mode) async throws -> Response {
        let transport = URLSessionTransport()
        switch mode {
        case .send:
            return try await transport.send(request)
        case .stream:
            let streaming = try await transport.stream(TransferRequest(request))
            var response = streaming.head
            response.body = try await streaming.collect()
            return response
        }
    }

    @Test("A 302 comes back unfollowed, with its status, Location and body", arguments: Mode.allCases)
    func found(_ mode: Mode) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/moved") { _ in
            TestResponse(status: 302, headers: [("Location", "/target")], body: .data(Data("moved to /target".utf8)))
        }
        let response = try await exchange(URLRequest(url: server.url("/moved")), mode)
        #expect(response.statusCode == 302)
        #expect(response.headers["Location"] == "/target")
        #expect(String(decoding: response.body, as: UTF8.self) == "moved to /target")
        #expect(response.url == server.url("/moved"))
        #expect(server.requests.map(\.path) == ["/moved"])
    }

    @Test("A 307 to a POST with a body comes back unfollowed; the body was sent once", arguments: Mode.allCases)
    func temporaryRedirectOfPost(_ mode: Mode) async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url("/redirect-to?url=/anything/next&status_code=307"))
        request.httpMethod = "POST"
        request.httpBody = Data("name=value".utf8)
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let response = try await exchange(request, mode)
        #expect(response.statusCode == 307)
        #expect(response.headers["Location"] == "/anything/next")
        let received = server.requests
        #expect(received.map(\.method) == ["POST"])
        #expect(received.map(\.path) == ["/redirect-to"])
        #expect(received.first?.bodyText == "name=value")
    }

    @Test("A 303 to a POST comes back unfollowed, and no GET follows it", arguments: Mode.allCases)
    func seeOther(_ mode: Mode) async throws {
        let server = try TestServer()
        defer { server.stop() }
        var request = URLRequest(url: server.url("/redirect-to?url=/get&status_code=303"))
        request.httpMethod = "POST"
        request.httpBody = Data("x".utf8)
        let response = try await exchange(request, mode)
        #expect(response.statusCode == 303)
        #expect(response.headers["Location"] == "/get")
        #expect(server.requests.map { "\($0.method) \($0.path)" } == ["POST /redirect-to"])
    }

    @Test(
        "A 401 with a Basic challenge comes back as the response, not a wait for credentials", arguments: Mode.allCases)
    func basicChallenge(_ mode: Mode) async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await exchange(URLRequest(url: server.url("/basic-auth/user/pass")), mode)
        #expect(response.statusCode == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Basic realm="Fake Realm""#)
        #expect(server.requests.map(\.path) == ["/basic-auth/user/pass"])
    }

    @Test("send(TransferRequest) reads a file body and collects the response", arguments: Mode.allCases)
    func fileBody(_ mode: Mode) async throws {
        let server = try TestServer()
        defer { server.stop() }
        server.route("/count") { request in
            .text("\(request.body.count) \(request.body == TestPayload.largeBody(count: 300_000))")
        }
        let file = try TemporaryFile(contents: TestPayload.largeBody(count: 300_000))
        defer { file.remove() }
        var request = URLRequest(url: server.url("/count"))
        request.httpMethod = "PUT"
        let transfer = TransferRequest(request, body: RequestBody(file: file.url))
        let transport = URLSessionTransport()
        let response: Response
        switch mode {
        case .send:
            response = try await transport.send(transfer)
        case .stream:
            let streaming = try await transport.stream(transfer)
            var collected = streaming.head
            collected.body = try await streaming.collect()
            response = collected
        }
        #expect(response.statusCode == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "300000 true")
    }

    @Test("Time a stream spends paused for its consumer does not count toward the idle timeout")
    func pausedStreamDoesNotTimeOut() async throws {
        let server = try TestServer()
        defer { server.stop() }
        // The body is small enough to arrive long before the idle timeout, even on a loaded machine (a gap of a
        // second has been seen under the thread sanitizer); most of it then waits, paused (on Linux, in the
        // spool), while the consumer sleeps.
        let total = 1024 * 1024
        var request = URLRequest(url: server.url("/large/\(total)"))
        request.timeoutInterval = 4
        let streaming = try await URLSessionTransport().stream(TransferRequest(request, bufferLimit: 64 * 1024))
        var iterator = streaming.body.makeAsyncIterator()
        var body = try #require(try await iterator.next())
        // Real time must pass while the consumer holds the stream paused: twice the idle timeout and more.
        try await Task.sleep(for: .seconds(9))
        while let chunk = try await iterator.next() { body.append(chunk) }
        #expect(body.count == total)
        #expect(body == TestPayload.largeBody(count: total))
    }

    @Test("One timer fails each idle transfer after its own timeout, never before")
    func oneTimerForEveryTimeout() async throws {
        let registry = TransferRegistry()
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let clock = ContinuousClock()
        let start = clock.now
        // Tasks that are never resumed receive nothing, so only the watchdog can end them.
        async let short = Self.idleFailure(of: session, in: registry, timeout: 0.5, clock: clock)
        async let long = Self.idleFailure(of: session, in: registry, timeout: 1.5, clock: clock)
        let (shortEnd, longEnd) = try await (short, long)
        #expect(shortEnd.error.kind == .timedOut)
        #expect(longEnd.error.kind == .timedOut)
        #expect(shortEnd.error.description.contains("no data for 0.5 s"))
        // Real time must pass: lower bounds at the timeouts, upper bounds generous enough for a loaded machine under the thread sanitizer.
        #expect(shortEnd.at - start >= .milliseconds(450))
        #expect(shortEnd.at - start < .seconds(120))
        #expect(longEnd.at - start >= .milliseconds(1450))
        #expect(longEnd.at - start < .seconds(150))
    }

    /// Registers a task that is never resumed with `timeout`, and returns the error it ends with and when.
    private static func idleFailure(
        of session: URLSession, in registry: TransferRegistry, timeout: TimeInterval, clock: ContinuousClock
    ) async throws -> (error: RequestError, at: ContinuousClock.Instant) {
        let url = try #require(URL(string: "http://127.0.0.1:9/never"))
        // Creating a task waits for FoundationNetworking's shared work queue: never on the cooperative pool.
        let task = try await offThePool { session.dataTask(with: url) }
        let error = try await #require(throws: RequestError.self) {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Response, any Error>) in
                registry.register(
                    task, idleTimeout: timeout, bodyFailure: BodyReadFailure(), limits: ResponseLimits(),
                    destination: .whole(continuation))
            }
        }
        return (error, clock.now)
    }

    @Test("The spool keeps bytes first in, first out, in a file that has no name on disk")
    func spoolHasNoName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let spool = BodySpool(directory: folder)
        #expect(spool.isEmpty)
        try spool.append(Data("first ".utf8))
        try spool.append(Data("second".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [])
        #expect(try spool.read(upTo: 4) == Data("firs".utf8))
        #expect(try spool.read(upTo: 100) == Data("t second".utf8))
        #expect(spool.isEmpty)
        #expect(try spool.read(upTo: 100) == nil)
        try spool.append(Data("again".utf8))
        #expect(try spool.read(upTo: 100) == Data("again".utf8))
        spool.close()
        #expect(spool.isEmpty)
    }
}
