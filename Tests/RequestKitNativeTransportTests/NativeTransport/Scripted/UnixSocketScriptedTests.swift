import Foundation
import Testing

@testable import RequestKitConnect
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// Connections through Unix domain sockets on a loop the test turns by hand: the connector goes to the socket's path
/// without a lookup, and the pool keeps each path's connections apart.
@Suite("Unix sockets without sockets")
struct UnixSocketScriptedTests {
    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    static func socket(_ path: String) -> SocketAddress {
        guard let address = try? SocketAddress(unixPath: path) else { preconditionFailure("\(path) is too long") }
        return address
    }

    @Test("A request through a socket connects to its path without looking the host up, and the metrics name it")
    func connectsToThePath() {
        let harness = LoopHarness()
        let stream = ScriptedByteStream()
        harness.dialer.plans = [.connects(stream)]
        stream.answer("GET /v1.43/containers/json ", with: Self.ok)
        let docker = Self.socket("/var/run/docker.sock")
        let request = harness.submit("/v1.43/containers/json", host: "docker", port: 80, unixSocket: docker)
        harness.settle()
        #expect(request.status == 200)
        #expect(harness.dialer.attempts == [docker])
        #expect(harness.dialer.lookupsAsked.isEmpty)
        #expect(request.job.finishedRecord.connection?.remoteAddress == "unix:/var/run/docker.sock")
    }

    @Test("Each socket path has connections of its own; the same path reuses its kept-alive connection")
    func pooledPerPath() {
        let harness = LoopHarness()
        let (first, second) = (ScriptedByteStream(), ScriptedByteStream())
        harness.dialer.plans = [.connects(first), .connects(second)]
        let (one, two) = (Self.socket("/run/one.sock"), Self.socket("/run/two.sock"))
        first.answer("GET /a ", with: Self.ok)
        _ = harness.submit("/a", host: "app", port: 80, unixSocket: one)
        harness.settle()
        second.answer("GET /b ", with: Self.ok)
        let other = harness.submit("/b", host: "app", port: 80, unixSocket: two)
        harness.settle()
        #expect(other.status == 200)
        first.answer("GET /c ", with: Self.ok)
        let again = harness.submit("/c", host: "app", port: 80, unixSocket: one)
        harness.settle()
        #expect(again.status == 200)
        #expect(harness.dialer.attempts == [one, two])
    }

    @Test("A socket that is not there fails naming its path, never retried over TCP")
    func missingSocket() throws {
        let harness = LoopHarness()
        harness.dialer.plans = [.fails(POSIXError(.ENOENT))]
        let request = harness.submit("/", host: "app", port: 80, unixSocket: Self.socket("/run/missing.sock"))
        harness.settle()
        let error = try #require(request.error)
        #expect(error.detail == "could not connect to the Unix socket /run/missing.sock (for app port 80)")
        #expect(harness.dialer.attemptCount == 1)
    }

    @Test("A refused socket is connectionRefused naming its path")
    func refusedSocket() throws {
        let harness = LoopHarness()
        harness.dialer.plans = [.fails(POSIXError(.ECONNREFUSED))]
        let request = harness.submit("/", host: "app", port: 80, unixSocket: Self.socket("/run/stale.sock"))
        harness.settle()
        let error = try #require(request.error)
        #expect(error.connectionFailure == .connectionRefused)
        #expect(error.description.contains("/run/stale.sock"))
    }
}
