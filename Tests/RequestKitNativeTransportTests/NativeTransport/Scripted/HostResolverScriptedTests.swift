import Foundation
import RequestKitConnect
import RequestKitModel
import RequestKitNativeTransport
import Testing

/// The transport's resolution on a loop the test turns by hand, on a clock it moves: overrides first, then the DNS
/// cache shared by the pool's connectors (one query per name and family at a time, answers kept for their TTL within
/// the floor and ceiling, failures briefly), and only then the lookup.
@Suite("HostResolver: overrides and the DNS cache without sockets")
struct HostResolverScriptedTests {
    static let host = "cached.test"
    static let v4 = ScriptedDialer.address("192.0.2.1")
    static let v6 = ScriptedDialer.address("2001:db8::1")
    /// A response after which the connection closes, so that the next request opens (and resolves) again.
    static let closing = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"

    /// Sends one request to ``host`` on a fresh connection that answers 200, and returns its status.
    static func send(_ harness: LoopHarness, _ path: String) -> Int? {
        let stream = ScriptedByteStream()
        stream.answer("GET \(path) ", with: closing)
        harness.dialer.plans = [.connects(stream)]
        let request = harness.submit(path, host: host)
        harness.settle()
        return request.status
    }

    @Test("New connections to one name ask once per TTL: five within 60 s, then again once it expired")
    func oneQueryPerTimeToLive() {
        let harness = LoopHarness()
        harness.dialer.answers = [
            Self.host: [
                .ipv6: .failure(ResolutionFailure(.noAddress, "cached.test has no IPv6 address")),
                .ipv4: ScriptedDialer.found([Self.v4], timeToLive: .seconds(60)),
            ]
        ]
        for index in 0..<5 {
            #expect(Self.send(harness, "/\(index)") == 200)
            harness.advance(0.1)
        }
        #expect(harness.dialer.attemptCount == 5)
        #expect(harness.dialer.lookupsAsked.map(\.description) == ["cached.test AAAA", "cached.test A"])
        harness.advance(60)
        #expect(Self.send(harness, "/later") == 200)
        #expect(
            harness.dialer.lookupsAsked.map(\.description) == [
                "cached.test AAAA", "cached.test A", "cached.test AAAA", "cached.test A",
            ])
    }

    @Test("A TTL of 0 is kept for the floor, and a long one only to the ceiling")
    func floorAndCeiling() {
        let harness = LoopHarness(
            dnsPolicy: DNSCache.Policy(minimumTimeToLive: .seconds(1), maximumTimeToLive: .seconds(10)))
        harness.dialer.answers = [
            Self.host: [
                .ipv6: ScriptedDialer.found([Self.v6], timeToLive: .zero),
                .ipv4: ScriptedDialer.found([Self.v4], timeToLive: .seconds(3_600)),
            ]
        ]
        for _ in 0..<4 { harness.dialer.plan(.fails(POSIXError(.ENETUNREACH)), for: Self.v6) }
        #expect(Self.send(harness, "/a") == 200)
        harness.advance(0.999)
        #expect(Self.send(harness, "/b") == 200)
        #expect(harness.dialer.lookupsAsked.count == 2)
        harness.advance(0.001)
        #expect(Self.send(harness, "/c") == 200)
        #expect(harness.dialer.lookupsAsked.map(\.description).suffix(1) == ["cached.test AAAA"])
        #expect(harness.dialer.lookupsAsked.count == 3)
        harness.advance(9)
        #expect(Self.send(harness, "/d") == 200)
        #expect(harness.dialer.lookupsAsked.count == 5)
    }

    @Test("Connectors that miss while a query is under way wait for its answer instead of asking again")
    func concurrentMissesShareOneQuery() {
        let harness = LoopHarness()
        let (first, second) = (ScriptedByteStream(), ScriptedByteStream())
        first.answer("GET /1 ", with: Self.closing)
        second.answer("GET /2 ", with: Self.closing)
        harness.dialer.plans = [.connects(first), .connects(second)]
        let one = harness.submit("/1", host: Self.host)
        let two = harness.submit("/2", host: Self.host)
        harness.settle()
        #expect(harness.dialer.lookupsAsked.count == 2)
        harness.dialer.answer(Self.host, .ipv6, with: ScriptedDialer.found([Self.v6]))
        harness.settle()
        #expect(one.status == 200)
        #expect(two.status == 200)
        #expect(harness.dialer.attempts == [Self.v6, Self.v6])
        #expect(harness.dialer.lookupsAsked.count == 2)
    }

    @Test("An override answers before the cache and the lookup, with its own addresses")
    func overrideFirst() throws {
        let overrides = try DNSOverrides(["cached.test:8080:192.0.2.9"])
        let harness = LoopHarness(overrides: overrides)
        #expect(Self.send(harness, "/a") == 200)
        #expect(harness.dialer.attempts == [ScriptedDialer.address("192.0.2.9")])
        #expect(harness.dialer.lookupsAsked.isEmpty)
    }

    @Test("A name not found is kept briefly: the next connection fails without asking, one after 2 s asks again")
    func failureKeptBriefly() {
        let harness = LoopHarness()
        let missing = ResolutionFailure(.notFound, "cached.test was not found")
        harness.dialer.answers = [Self.host: [.ipv6: .failure(missing), .ipv4: .failure(missing)]]
        let first = harness.submit("/a", host: Self.host)
        harness.settle()
        #expect(first.error?.connectionFailure == .hostNotFound)
        let again = harness.submit("/b", host: Self.host)
        harness.settle()
        #expect(again.error?.connectionFailure == .hostNotFound)
        #expect(harness.dialer.lookupsAsked.count == 2)
        harness.advance(2)
        harness.submit("/c", host: Self.host)
        harness.settle()
        #expect(harness.dialer.lookupsAsked.count == 4)
    }
}
