import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite("Server values never poison later requests", .wallClock)
struct PoisonedStateTests {
    /// Server values a monitor was told were dropped.
    final class Dropped: EventMonitor, @unchecked Sendable {
        // Safe: `values` is only touched while holding `lock`.
        private let lock = NSLock()
        private var values: [String] = []
        func serverValueDropped(_ field: String, value: String, from url: URL?) {
            lock.withLock { values.append("\(field)=\(value)") }
        }
        var all: [String] { lock.withLock { values } }
    }

    @Test("Validators that are not valid are dropped, reported, and never sent back", arguments: WireTransport.all)
    func pollValidators(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let dropped = Dropped()
        var results: [String] = []
        for await result in Request({
            Url(server.url("/hostile/bad-validators?syntax=1"))
            Using(transport.transport)
            Monitor(dropped)
        }).poll(every: .milliseconds(10), maxCount: 3) {
            results.append(result.response.map { "\($0.statusCode)" } ?? "failed \(result.error?.kind.name ?? "")")
        }
        #expect(results == ["200", "200", "200"])
        #expect(dropped.all == Array(repeating: ["ETag=a b", "Last-Modified=soon"], count: 3).flatMap { $0 })
        for request in server.requests {
            #expect(request.header("If-None-Match") == nil)
            #expect(request.header("If-Modified-Since") == nil)
        }
    }

    @Test("A bare ETag without quotes, as httpbin sends it, is sent back as it came", arguments: WireTransport.all)
    func bareEntityTag(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        server.route("/bare") { _ in TestResponse(status: 200, headers: [("ETag", "abc")], body: .data(Data("ok".utf8)))
        }
        let dropped = Dropped()
        for await _ in Request({
            Url(server.url("/bare"))
            Using(transport.transport)
            Monitor(dropped)
        }).poll(every: .milliseconds(10), maxCount: 2) {}
        #expect(server.requests.map { $0.header("If-None-Match") } == [nil, "abc"])
        #expect(dropped.all == [])
    }

    @Test(
        "An ETag with a control character never turns later polls into invalid requests", arguments: WireTransport.all)
    func pollControlCharacters(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        var kinds: [String] = []
        for await result in Request({
            Url(server.url("/hostile/bad-validators"))
            Using(transport.transport)
        }).poll(every: .milliseconds(10), maxCount: 3) {
            kinds.append(result.error?.kind.name ?? "ok")
        }
        #expect(kinds.count == 3)
        #expect(!kinds.contains("invalidRequest"))
        #expect(server.requests.count == 3)
        #expect(server.requests.allSatisfy { $0.header("If-None-Match") == nil })
    }

    @Test(
        "An event id with a control character is ignored; the reconnection sends the last valid one",
        arguments: WireTransport.all)
    func eventID(_ transport: WireTransport) async throws {
        let server = try transport.server()
        defer { server.stop() }
        let dropped = Dropped()
        var events: [String] = []
        for try await event in Request({
            Url(server.url("/hostile/bad-event-id"))
            Using(transport.transport)
            Monitor(dropped)
        }).events(EventSourceConfiguration(defaultRetry: .milliseconds(10))) {
            events.append("\(event.id ?? "-"):\(event.data)")
            if events.count == 3 { break }
        }
        #expect(events == ["1:first", "1:second", "1:first"])
        #expect(server.requests.count == 2)
        #expect(server.requests.last?.header("Last-Event-ID") == "1")
        // The second connection delivers both events in one chunk, so the bad id is met, and reported, twice.
        #expect(dropped.all == ["event id=a\u{01}b", "event id=a\u{01}b"])
    }
}
