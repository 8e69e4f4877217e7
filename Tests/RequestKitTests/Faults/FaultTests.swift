import Foundation
import RequestKit
import RequestKitTestSupport
import RequestKitTesting
import Testing

@Suite(
    "Hostile servers, on every transport", .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp")), .wallClock)
struct FaultTests {
    /// Each fault and the kind of error it must end in.
    static let faults: [(path: String, kind: RequestError.Kind)] = [
        ("/fault/close", .transport),
        ("/fault/truncate", .transport),
        ("/fault/malformed-status", .transport),
        ("/fault/garbage", .transport),
        ("/fault/bad-chunk", .transport),
        ("/fault/huge-chunk", .transport),
        ("/fault/huge-headers", .transport),
        ("/fault/hang", .timedOut),
        ("/fault/hang-body", .timedOut),
        ("/drip?numbytes=5&duration=20", .timedOut),
    ]

    /// The faults an HTTP/2 server can commit with a ``TestServer`` route: over HTTP/2 a route that writes HTTP/1.1
    /// bytes by hand closes the connection instead (a transport error, never a hang), and a response held back or
    /// dripped stalls its stream. Malformed frames are the HTTP/2 hostile-server suite's.
    static let http2Faults: [(path: String, kind: RequestError.Kind)] = [
        ("/fault/close", .transport),
        ("/fault/truncate", .transport),
        ("/fault/garbage", .transport),
        ("/delay/10", .timedOut),
        ("/drip?numbytes=5&duration=20", .timedOut),
    ]

    @Test(
        "Every fault ends in a typed error within the timeout, and leaves no socket open (but an HTTP/2 connection's)",
        arguments: WireTransport.withTLS)
    func faultsEndInTypedErrors(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let clock = ContinuousClock()
        for fault in wire.http2 == nil ? Self.faults : Self.http2Faults {
            let start = clock.now
            let error = try await #require(throws: RequestError.self, "\(fault.path)") {
                try await Request {
                    // A short idle timeout where one is the expected end; a roomy one where it must not fire.
                    Url(server.url(fault.path)); Using(wire.transport); Timeout(fault.kind == .timedOut ? 1 : 30)
                }.send()
            }
            #expect(error.kind == fault.kind, "\(fault.path): \(error)")
            #expect(clock.now - start < .seconds(90), "\(fault.path) took \(clock.now - start)")
        }
        // A stream that timed out is reset, and its HTTP/2 connection stays in the pool for the next request.
        let kept = wire.http2 == nil ? 0 : 1
        var open = socketsConnected(toPort: server.port)
        for _ in 0..<400 where open > kept {
            try await Task.sleep(nanoseconds: 50_000_000)
            open = socketsConnected(toPort: server.port)
        }
        #expect(open == kept)
    }

    /// HTTP/1.1 framing: over HTTP/2 a body's end is its stream's, and the route's hand-written bytes close the
    /// connection instead.
    @Test(
        "A Content-Length shorter than the body gives exactly that many bytes",
        arguments: WireTransport.withTLS.filter { $0.http2 == nil })
    func shortContentLength(_ wire: WireTransport) async throws {
        let server = try wire.server()
        defer { server.stop() }
        let body = try await Request {
            Url(server.url("/fault/short-length")); Using(wire.transport)
        }.data()
        #expect(body == Data("01234".utf8))
        let next = try await Request {
            Url(server.url("/get")); Using(wire.transport)
        }.send()
        #expect(next.statusCode == 200)
    }
}
