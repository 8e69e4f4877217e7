import Foundation
import RequestKit
import RequestKitTesting

/// Groups of concurrent requests, chains of dependent steps, and polling.
func compositionTour(_ tour: inout Tour) async throws {
    let server = tour.server

    tour.section("A group: ten requests, at most four at a time, results in declaration order")
    let group = RequestGroup(maxConcurrent: 4) {
        for id in 1...9 { Request { Url(server.url("/delay/0.2?id=\(id)")) } }
        Request { Url(server.url("/status/404")) }
    }
    let before = server.stats.requestCount
    let results = try await group.send()
    let statuses = results.map { result in
        switch result {
        case .success(let response): "\(response.statusCode)"
        case .failure(let error): "error \(error.statusCode ?? 0)"
        }
    }
    tour.received(statuses.joined(separator: ", "))
    tour.received("the server got \(server.stats.requestCount - before) requests, never more than 4 at once")

    tour.section("A chain: log in, then send the token from the first response")
    server.route("/login", method: "POST") { _ in .json(Data(#"{"token":"s3cr3t"}"#.utf8)) }
    let chain = RequestChain {
        Step("login") { _ in
            Request {
                Url(server.url("/login")); Method(.post); Body(json: ["user": "ann"])
            }
        }
        Step("profile") { previous in
            let token = try previous.json("login").token.string ?? ""
            return Request {
                Url(server.url("/bearer")); Header.Authorization(.bearer(token))
            }
        }
    }
    let steps = try await chain.send()
    tour.received("steps \(steps.names), statuses \(steps.responses.map(\.statusCode))")
    tour.received("the server saw Authorization: \(server.requests.last?.header("Authorization") ?? "none")")

    tour.section("A failing chain names the step")
    do {
        _ = try await RequestChain {
            Step("login", Request { Url(server.url("/status/401")) })
        }.send()
    } catch {
        tour.received(error.description)
    }

    tour.section("Polling with conditional requests: a 304 is reported as unchanged")
    let resource = Request { Url(server.url("/etag/v1")) }
    var polling = resource.poll(every: .milliseconds(100), maxCount: 3).makeAsyncIterator()
    while let result = await polling.next() {
        switch result {
        case .changed(let response): tour.received("changed: \(response.status), \(response.body.count) bytes")
        case .unchanged: tour.received("unchanged (the server saw \(tour.lastServerRequest))")
        case .failed(let error): tour.received("failed: \(error)")
        }
    }
    tour.received("polling ended: \(polling.end.map { "\($0)" } ?? "?")")

    tour.section("update(every:) until a condition holds, with a completion handler saying how it ended")
    let counter = ExampleCounter()
    server.route("/job") { _ in .json(Data(#"{"state":"\#(counter.next() < 3 ? "running" : "done")"}"#.utf8)) }
    let updates = Request { Url(server.url("/job")) }
        .onJson { json in print("   ← state: \(json.state.string ?? "?")") }
        .update(every: 0.05, until: { (try? $0.json().state.string) == "done" }, maxDuration: 5) { end in
            print("   ← updates ended: \(end)")
        }
    await updates.wait()
}

/// Counts the requests a route answers.
final class ExampleCounter: @unchecked Sendable {
    // Safe: every access to `count` holds `lock`.
    private let lock = NSLock()
    private var count = 0

    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
