import Foundation
import RequestKit
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

@Suite("TraceContext: W3C traceparent and tracestate", .wallClock)
struct TraceContextTests {
    static let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

    /// The `traceparent` and `tracestate` of a request built with `trace`.
    static func headers(_ trace: TraceContext) throws -> (parent: String?, state: String?) {
        let request = try Request {
            Url("http://127.0.0.1:8080/orders")
            trace
        }.urlRequest()
        return (request.value(forHTTPHeaderField: "traceparent"), request.value(forHTTPHeaderField: "tracestate"))
    }

    /// The fields of a version 00 `traceparent`, checked for shape.
    static func fields(_ traceparent: String?) throws -> [String] {
        let fields = try #require(traceparent).split(separator: "-").map(String.init)
        try #require(fields.count == 4)
        #expect(fields[0] == "00")
        #expect(fields[1].count == 32 && fields[1].allSatisfy { "0123456789abcdef".contains($0) })
        #expect(fields[2].count == 16 && fields[2].allSatisfy { "0123456789abcdef".contains($0) })
        return fields
    }

    @Test("A new trace gets a random trace id and span id per request, sampled, with no tracestate")
    func newTrace() throws {
        let first = try Self.headers(TraceContext())
        let second = try Self.headers(TraceContext())
        let a = try Self.fields(first.parent)
        let b = try Self.fields(second.parent)
        #expect(a[1] != b[1])
        #expect(a[2] != b[2])
        #expect(a[3] == "01")
        #expect(first.state == nil)
        let unsampled = try Self.headers(TraceContext(sampled: false, tracestate: "congo=t61rcWkgMzE"))
        #expect(try Self.fields(unsampled.parent)[3] == "00")
        #expect(unsampled.state == "congo=t61rcWkgMzE")
    }

    @Test("Continuing keeps the trace id and flags, sends a new span id, and passes tracestate on")
    func continued() throws {
        let trace = TraceContext(traceparent: Self.incoming, tracestate: " rojo=00f067aa0ba902b7,congo=t61rcWkgMzE ")
        #expect(trace.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(trace.parentID == "00f067aa0ba902b7")
        #expect(trace.isSampled)
        let first = try Self.headers(trace)
        let second = try Self.headers(trace)
        let a = try Self.fields(first.parent)
        let b = try Self.fields(second.parent)
        #expect(a[1] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(b[1] == a[1])
        #expect(a[2] != "00f067aa0ba902b7")
        #expect(a[2] != b[2])
        #expect(a[3] == "01")
        #expect(first.state == "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        let unsampled = try Self.headers(
            TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"))
        #expect(try Self.fields(unsampled.parent)[3] == "00")
    }

    @Test("A later version is read by its first four fields and continued as version 00")
    func laterVersion() throws {
        let trace = TraceContext(
            traceparent: "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09-what-comes-next")
        let fields = try Self.fields(try Self.headers(trace).parent)
        #expect(fields[1] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(fields[3] == "01")
    }

    @Test(
        "An invalid traceparent is a request problem saying what is wrong, and nothing is sent",
        arguments: [
            ("", "it must have four fields separated by \"-\""),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "it must have four fields separated by \"-\""),
            ("0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "the version must be 2 lowercase hex digits"),
            ("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "version ff is forbidden"),
            ("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x", "version 00 has exactly four fields"),
            (
                "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
                "the trace-id must be 32 lowercase hex digits, not all zero"
            ),
            (
                "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                "the trace-id must be 32 lowercase hex digits, not all zero"
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
                "the parent-id must be 16 lowercase hex digits, not all zero"
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
                "the parent-id must be 16 lowercase hex digits, not all zero"
            ),
            (
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
                "the trace-flags must be 2 lowercase hex digits"
            ),
        ])
    func invalidTraceParent(_ value: String, _ reason: String) throws {
        let error = try #require(throws: RequestError.self) { try Self.headers(TraceContext(traceparent: value)) }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidHeaderValue])
        #expect(error.problems.first?.message == "the traceparent \(value.debugDescription) is not valid: \(reason)")
    }

    @Test(
        "An invalid tracestate is a request problem",
        arguments: [
            ("rojo", "has a member without \"=\": \"rojo\""),
            ("Rojo=1", "has an invalid key \"Rojo\""),
            ("1rojo=1", "has an invalid key \"1rojo\""),
            ("rojo=a,rojo=b", "repeats the key rojo"),
            ("rojo=a=b", "has an invalid value for rojo: \"a=b\""),
            ("rojo=", "has an invalid value for rojo: \"\""),
            ("t@s@x=1", "has an invalid key \"t@s@x\""),
            ((0...32).map { "k\($0)=v" }.joined(separator: ","), "has 33 members; at most 32 are allowed"),
        ])
    func invalidTraceState(_ value: String, _ reason: String) throws {
        for trace in [TraceContext(tracestate: value), TraceContext(traceparent: Self.incoming, tracestate: value)] {
            let error = try #require(throws: RequestError.self) { try Self.headers(trace) }
            #expect(error.problems.map(\.kind) == [.invalidHeaderValue])
            #expect(error.problems.first?.message == "the tracestate \(value.debugDescription) \(reason)")
        }
    }

    @Test("Valid tracestate forms pass: multi-tenant keys, empty members, spaces inside a value")
    func validTraceState() throws {
        let state = "fw529a3039@dt=00f067aa0ba902b7, ,0tenant@vendor=a b,k_-*/=v"
        #expect(try Self.headers(TraceContext(tracestate: state)).state == state)
    }

    @Test("A client's trace context reaches the server on every request; a request's own replaces it")
    func client() async throws {
        let server = try TestServer()
        defer { server.stop() }
        var configuration = Client.Configuration(baseURL: server.url("/"))
        configuration.traceContext = TraceContext(traceparent: Self.incoming, tracestate: "rojo=1")
        let client = Client(configuration: configuration)
        _ = try await client.send(Request { Path("get") })
        _ = try await client.send(Request { Path("get") })
        _ = try await client.send(
            Request {
                Path("get")
                TraceContext(sampled: false)
            })
        let parents = try server.requests.map { try Self.fields($0.header("traceparent")) }
        #expect(parents.map { $0[1] } == Array(repeating: parents[0][1], count: 2) + [parents[2][1]])
        #expect(parents[0][1] == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parents[2][1] != parents[0][1])
        #expect(Set(parents.map { $0[2] }).count == 3)
        #expect(parents.map { $0[3] } == ["01", "01", "00"])
        #expect(server.requests.map { $0.header("tracestate") } == ["rojo=1", "rojo=1", nil])
    }

    @Test("Each attempt's metrics carry the traceparent it was sent with, through redirects and failures")
    func onMetrics() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let response = try await Request {
            Url(server.url("/redirect/1"))
            TraceContext(traceparent: Self.incoming)
        }.send()
        let sent = server.requests.map { $0.header("traceparent") }
        #expect(sent.count == 2 && sent[0] == sent[1])
        #expect(response.metrics.attempts.map(\.traceparent) == sent)
        #expect(response.metrics.attempts.first?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(response.metrics.attempts.first?.spanID == (try Self.fields(sent[0]))[2])
        let down = try RefusingPort()
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url(down.url("/"))
                TraceContext()
            }.send()
        }
        #expect(error.metrics?.attempts.last?.traceID?.count == 32)
        let untraced = try await Request { Url(server.url("/get")) }.send()
        #expect(untraced.metrics.attempts.first?.traceparent == nil)
    }

    @Test("An interceptor's traceparent (a tracer's propagation) replaces TraceContext's, and the metrics report it")
    func replacedByInterceptor() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let tracer = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        let response = try await Request {
            Url(server.url("/get"))
            TraceContext(traceparent: Self.incoming)
            Intercept(HeaderSetter(name: "traceparent", value: tracer))
        }.send()
        #expect(server.requests.map { $0.header("traceparent") } == [tracer])
        #expect(response.metrics.attempts.map(\.traceparent) == [tracer])
        #expect(response.metrics.attempts.first?.spanID == "b7ad6b7169203331")
        // An interceptor that leaves the field alone keeps TraceContext's, as built.
        let kept = try await Request {
            Url(server.url("/get"))
            TraceContext(traceparent: Self.incoming)
            Intercept(HeaderSetter(name: "X-Other", value: "1"))
        }.send()
        let sent = try #require(server.requests.last?.header("traceparent"))
        #expect(sent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        #expect(kept.metrics.attempts.map(\.traceparent) == [sent])
    }

    @Test("ConsoleLogger's request line shows the traceparent sent")
    func logged() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let lines = LockedLines()
        _ = try await Request {
            Url(server.url("/get"))
            TraceContext(traceparent: Self.incoming)
            Monitor(ConsoleLogger { lines.append($0) })
        }.send()
        let sent = try #require(server.requests.last?.header("traceparent"))
        #expect(sent.hasPrefix("00-4bf92f3577b34da6a3ce929d0e0e4736-"))
        #expect(lines.all.first?.contains("-H 'Traceparent: \(sent)'") == true)
    }
}

/// Lines a logger wrote, from whichever thread.
private final class LockedLines: @unchecked Sendable {
    // Safe: `lines` is only touched while `lock` is held.
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
