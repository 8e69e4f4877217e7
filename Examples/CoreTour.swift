import Foundation
import RequestKit
import RequestKitTesting

/// The request DSL, sending, typed decoding, errors and callbacks.
func coreTour(_ tour: inout Tour) async throws {
    let server = tour.server

    tour.section("A declarative GET with headers and an encoded query")
    let search = Request {
        Url(server.url("/anything/search"))
        Header.Accept(.json)
        Header.UserAgent(.requestKit)
        Query("q", value: "swift & linux")
        Query("tag", values: ["http", "dsl"])
        Timeout(10)
    }
    tour.sent(search)
    let response = try await search.send()
    tour.received("\(response.status); the server saw \(tour.lastServerRequest)")

    tour.section("Decoding JSON into a Decodable type with AnyRequest")
    struct Echo: Decodable, Sendable {
        let method: String
        let args: [String: String]
    }
    let echo = try await AnyRequest<Echo> {
        Url(server.url("/anything"))
        Query("userId", value: 1)
    }.value()
    tour.received("method \(echo.method), args \(echo.args)")

    tour.section("POSTing an Encodable body")
    struct NewTodo: Encodable, Sendable {
        let title: String
        let completed: Bool
    }
    let post = Request {
        Url(server.url("/post"))
        Method(.post)
        Body(NewTodo(title: "Try RequestKit", completed: false))
    }
    tour.sent(post)
    _ = try await post.data()
    let body = server.requests.last.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
    tour.received("the server got \(body)")

    tour.section("A 404 is an error that keeps the status and body")
    do {
        _ = try await Request { Url(server.url("/status/404")) }.data()
    } catch {
        tour.received("\(error.kind): status \(error.statusCode ?? 0)")
        tour.received(error.description)
    }

    tour.section("An invalid request lists every problem and is never sent")
    let invalid = Request {
        Url("ftp://example.com")
        Method("NOT A TOKEN")
        Header.Any(key: "X-Injected", value: "a\r\nEvil: 1")
    }
    print(invalid.cURL)

    tour.section("Timeouts are enforced, even on Linux")
    do {
        _ = try await Request {
            Url(server.url("/delay/5")); Timeout(0.5)
        }.send()
    } catch {
        tour.received(error.description)
    }

    tour.section("swift-request style callbacks")
    let log = CallbackLog()
    await Request { Url(server.url("/json")) }
        .onStatusCode { log.add("status \($0)") }
        .onData { log.add("data: \($0.count) bytes") }
        .onError { log.add("error: \($0)") }
        .call()
        .wait()
    for line in log.lines { tour.received(line) }
}

/// Collects callback output so the tour prints it in order.
final class CallbackLog: @unchecked Sendable {
    // Safe: every access to `entries` holds `lock`.
    private let lock = NSLock()
    private var entries: [String] = []

    func add(_ line: String) { lock.withLock { entries.append(line) } }
    var lines: [String] { lock.withLock { entries } }
}
