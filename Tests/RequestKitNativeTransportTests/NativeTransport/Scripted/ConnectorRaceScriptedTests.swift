import Foundation
import Testing

@testable import RequestKitConnect
@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// The connector's race of a host's IPv6 and IPv4 addresses (RFC 8305) on a loop the test turns by hand, on a clock
/// it moves: several sockets in flight, the first connected wins, the others close, the connect timeout bounds the
/// whole race, and the metrics name every address tried.
@Suite("Connector: the address race without sockets")
struct ConnectorRaceScriptedTests {
    static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    static let host = "dual.test"
    static let v6 = ScriptedDialer.address("2001:db8::1")
    static let v6b = ScriptedDialer.address("2001:db8::2")
    static let v4 = ScriptedDialer.address("192.0.2.1")
    static let v4b = ScriptedDialer.address("192.0.2.2")

    /// A harness whose dialer answers both families of ``host`` at once.
    static func harness(
        ipv6: [SocketAddress] = [v6], ipv4: [SocketAddress] = [v4], connectTimeout: Double = 10
    ) -> LoopHarness {
        let harness = LoopHarness(connectTimeout: connectTimeout)
        harness.dialer.answers = [host: [.ipv6: ScriptedDialer.found(ipv6), .ipv4: ScriptedDialer.found(ipv4)]]
        return harness
    }

    /// The addresses the request's connection tried and how each ended, as its metrics show them.
    static func tried(_ request: LoopHarness.Submitted) -> [String] {
        request.job.finishedRecord.attempt(url: nil, status: nil, bodyBytes: nil, end: nil).addressAttempts.map {
            $0.description
        }
    }

    @Test("IPv6 silently dropped: IPv4 starts after the attempt delay beside it, wins, and the IPv6 socket closes")
    func ipv6HangsIPv4Wins() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plan(.hangs, for: Self.v6)
        harness.dialer.plan(.connects(stream), for: Self.v4)
        stream.answer("GET /a ", with: Self.ok)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        #expect(harness.dialer.attempts == [Self.v6])
        harness.advance(0.249)
        #expect(harness.dialer.attempts == [Self.v6])
        #expect(!request.isFinished)
        harness.advance(0.001)
        #expect(harness.dialer.attempts == [Self.v6, Self.v4])
        #expect(request.status == 200)
        #expect(harness.dialer.closedDescriptors.count == 1)
        #expect(
            Self.tried(request) == [
                "[2001:db8::1]:8080 lost the race after 250.0 ms", "192.0.2.1:8080 connected after 0.0 ms",
            ])
        #expect(request.job.finishedRecord.connection?.remoteAddress == "192.0.2.1:8080")
    }

    @Test("An IPv6 attempt that connects while IPv4 is pending wins, and the IPv4 socket closes")
    func lateIPv6StillWins() {
        let harness = Self.harness()
        let stream = ScriptedByteStream()
        harness.dialer.plan(.hangs, for: Self.v6)
        harness.dialer.plan(.hangs, for: Self.v4)
        stream.answer("GET /a ", with: Self.ok)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        harness.advance(0.25)
        harness.advance(0.05)
        #expect(harness.dialer.attempts == [Self.v6, Self.v4])
        harness.dialer.complete(Self.v6, with: .connects(stream))
        harness.settle()
        #expect(request.status == 200)
        #expect(
            Self.tried(request) == [
                "[2001:db8::1]:8080 connected after 300.0 ms", "192.0.2.1:8080 lost the race after 50.0 ms",
            ])
        #expect(harness.dialer.closedDescriptors.count == 1)
    }

    @Test("A refusal starts the next address at once, alternating families, without waiting for the attempt delay")
    func refusalMovesOnAtOnce() {
        let harness = Self.harness(ipv6: [Self.v6, Self.v6b], ipv4: [Self.v4])
        let stream = ScriptedByteStream()
        harness.dialer.plan(.failsLater(POSIXError(.ECONNREFUSED)), for: Self.v6)
        harness.dialer.plan(.fails(POSIXError(.ENETUNREACH)), for: Self.v4)
        harness.dialer.plan(.connects(stream), for: Self.v6b)
        stream.answer("GET /a ", with: Self.ok)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        #expect(harness.dialer.attempts == [Self.v6, Self.v4, Self.v6b])
        #expect(request.status == 200)
        #expect(
            Self.tried(request) == [
                "[2001:db8::1]:8080 failed (Connection refused) after 0.0 ms",
                "192.0.2.1:8080 failed (Network is unreachable) after 0.0 ms",
                "[2001:db8::2]:8080 connected after 0.0 ms",
            ])
    }

    @Test("Both families refused: one connectionFailed error naming every address and how each ended")
    func bothFamiliesFail() throws {
        let harness = Self.harness()
        harness.dialer.plan(.failsLater(POSIXError(.ENETUNREACH)), for: Self.v6)
        harness.dialer.plan(.failsLater(POSIXError(.ECONNREFUSED)), for: Self.v4)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        let error = try #require(request.error)
        #expect(error.connectionFailure == .connectionRefused)
        let race = try #require(error.underlyingError as? ConnectRaceFailure)
        #expect(race.attempts.map(\.address) == [Self.v6, Self.v4])
        #expect(
            race.description
                == "Could not connect to dual.test port 8080 (every address failed): [2001:db8::1]:8080 failed "
                + "(ENETUNREACH: Network is unreachable) after 0 ms; 192.0.2.1:8080 failed (ECONNREFUSED: Connection "
                + "refused) after 0 ms")
        #expect(error.description.contains("[2001:db8::1]:8080 failed (ENETUNREACH"))
        #expect(Self.tried(request).count == 2)
    }

    @Test("A late AAAA answer: the A answer waits the resolution delay, then IPv4 goes first; IPv6 joins once answered")
    func lateAAAA() {
        let harness = LoopHarness()
        harness.dialer.answers = [Self.host: [.ipv4: ScriptedDialer.found([Self.v4])]]
        let stream = ScriptedByteStream()
        harness.dialer.plan(.hangs, for: Self.v4)
        harness.dialer.plan(.connects(stream), for: Self.v6)
        stream.answer("GET /a ", with: Self.ok)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        #expect(harness.dialer.lookupsAsked.map(\.description) == ["dual.test AAAA", "dual.test A"])
        harness.advance(0.049)
        #expect(harness.dialer.attempts.isEmpty)
        harness.advance(0.001)
        #expect(harness.dialer.attempts == [Self.v4])
        harness.advance(0.1)
        harness.dialer.answer(Self.host, .ipv6, with: ScriptedDialer.found([Self.v6]))
        harness.settle()
        // The IPv6 address joins the addresses not yet tried; it starts at the attempt delay after IPv4's start.
        #expect(harness.dialer.attempts == [Self.v4])
        harness.advance(0.149)
        #expect(harness.dialer.attempts == [Self.v4])
        harness.advance(0.001)
        #expect(harness.dialer.attempts == [Self.v4, Self.v6])
        #expect(request.status == 200)
    }

    @Test("AAAA never answered: IPv4 connects after the resolution delay alone")
    func aaaaNeverAnswered() {
        let harness = LoopHarness()
        harness.dialer.answers = [Self.host: [.ipv4: ScriptedDialer.found([Self.v4])]]
        let stream = ScriptedByteStream()
        harness.dialer.plan(.connects(stream), for: Self.v4)
        stream.answer("GET /a ", with: Self.ok)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        #expect(!request.isFinished)
        harness.advance(0.05)
        #expect(request.status == 200)
        #expect(harness.dialer.attempts == [Self.v4])
    }

    @Test("The connect timeout bounds the whole race: both hanging, one timeout naming both addresses")
    func deadlineOverTheRace() throws {
        let harness = Self.harness(connectTimeout: 2)
        harness.dialer.plan(.hangs, for: Self.v6)
        harness.dialer.plan(.hangs, for: Self.v4)
        let request = harness.submit("/a", host: Self.host, timeout: 30)
        harness.settle()
        harness.advance(0.25)
        harness.advance(1.749)
        #expect(!request.isFinished)
        #expect(harness.dialer.attempts == [Self.v6, Self.v4])
        harness.advance(0.001)
        let error = try #require(request.error)
        #expect(error.kind == .timedOut)
        #expect(
            error.detail
                == "Could not connect to dual.test port 8080 (timed out): [2001:db8::1]:8080 timed out after 2000 ms; "
                + "192.0.2.1:8080 timed out after 1750 ms, within the connect timeout of 2 s")
        #expect(harness.dialer.closedDescriptors.count == 2)
        #expect(
            Self.tried(request) == [
                "[2001:db8::1]:8080 timed out after 2000.0 ms", "192.0.2.1:8080 timed out after 1750.0 ms",
            ])
    }

    @Test("The request's timeout, when sooner than the connect timeout, ends the race and says so")
    func requestDeadlineOverTheRace() throws {
        let harness = Self.harness(connectTimeout: 10)
        harness.dialer.plan(.hangs, for: Self.v6)
        harness.dialer.plan(.hangs, for: Self.v4)
        let request = harness.submit("/a", host: Self.host, timeout: 1)
        harness.settle()
        harness.advance(0.25)
        harness.advance(0.75)
        let error = try #require(request.error)
        #expect(error.kind == .timedOut)
        #expect(error.detail?.hasSuffix("within the request's timeout of 1 s") == true)
        #expect(harness.dialer.closedDescriptors.count == 2)
    }

    @Test("A name with no address in either family fails as host not found, with both answers")
    func noAddress() throws {
        let harness = LoopHarness()
        let missing = ResolutionFailure(.notFound, "dual.test was not found (Domain name not found)")
        harness.dialer.answers = [Self.host: [.ipv6: .failure(missing), .ipv4: .failure(missing)]]
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        let error = try #require(request.error)
        #expect(error.connectionFailure == .hostNotFound)
        #expect(error.description.contains("dual.test was not found (Domain name not found)"))
        #expect(harness.dialer.attemptCount == 0)
    }

    @Test("Cancelling during the race closes every pending socket and ends the request as cancelled")
    func cancelDuringRace() {
        let harness = Self.harness()
        harness.dialer.plan(.hangs, for: Self.v6)
        harness.dialer.plan(.hangs, for: Self.v4)
        let request = harness.submit("/a", host: Self.host)
        harness.settle()
        harness.advance(0.25)
        #expect(harness.dialer.attempts.count == 2)
        request.job.cancel()
        harness.settle()
        #expect(request.error?.kind == .cancelled)
        #expect(harness.dialer.closedDescriptors.count == 2)
    }
}
