import Foundation
import RequestKitConnect
import RequestKitModel
import Testing

/// The DNS cache on time the test passes in: TTLs within a floor and a ceiling, failures kept briefly, one query
/// per name at a time. Nothing sleeps.
@Suite("DNS cache")
struct DNSCacheTests {
    static let second: UInt64 = 1_000_000_000

    static func address(_ ip: String) -> SocketAddress {
        guard let address = SocketAddress(ip: ip, port: 443) else { preconditionFailure("\(ip) is not numeric") }
        return address
    }

    static let answer = ResolvedAddresses(addresses: [address("192.0.2.1")], timeToLive: .seconds(60))

    @Test("a name is asked once, then answered from the cache until its TTL runs out")
    func answerKeptForTTL() {
        var cache = DNSCache()
        #expect(cache.lookup(host: "poll.test", port: 443, family: .ipv4, now: 0) == .resolve)
        #expect(cache.lookup(host: "poll.test", port: 443, family: .ipv4, now: 1) == .wait)
        cache.store(.success(Self.answer), host: "poll.test", port: 443, family: .ipv4, now: 10)
        var asked = 1
        for second in 1...120 {
            switch cache.lookup(host: "POLL.test", port: 443, family: .ipv4, now: UInt64(second) * Self.second) {
            case .hit(let addresses): #expect(addresses == Self.answer.addresses)
            case .resolve:
                asked += 1
                #expect(second == 61, "the answer of 10 ns expires at 60 s + 10 ns")
                cache.store(
                    .success(Self.answer), host: "poll.test", port: 443, family: .ipv4,
                    now: UInt64(second) * Self.second)
            case .wait, .failed: Issue.record("unexpected lookup at \(second) s")
            }
        }
        #expect(asked == 2)
    }

    @Test("families and ports are kept apart")
    func keyedByFamilyAndPort() {
        var cache = DNSCache()
        #expect(cache.lookup(host: "a.test", port: 443, family: .ipv4, now: 0) == .resolve)
        cache.store(.success(Self.answer), host: "a.test", port: 443, family: .ipv4, now: 0)
        #expect(cache.lookup(host: "a.test", port: 443, family: .ipv6, now: 0) == .resolve)
        #expect(cache.lookup(host: "a.test", port: 80, family: .ipv4, now: 0) == .resolve)
        #expect(cache.lookup(host: "a.test", port: 443, family: .ipv4, now: 0) == .hit(Self.answer.addresses))
    }

    @Test("a TTL below the floor is kept for the floor, one above the ceiling for the ceiling")
    func floorAndCeiling() {
        var cache = DNSCache(policy: .init(minimumTimeToLive: .seconds(5), maximumTimeToLive: .seconds(30)))
        _ = cache.lookup(host: "zero.test", port: 443, family: .ipv4, now: 0)
        cache.store(
            .success(ResolvedAddresses(addresses: Self.answer.addresses, timeToLive: .zero)), host: "zero.test",
            port: 443, family: .ipv4, now: 0)
        _ = cache.lookup(host: "long.test", port: 443, family: .ipv4, now: 0)
        cache.store(
            .success(ResolvedAddresses(addresses: Self.answer.addresses, timeToLive: .seconds(86_400))),
            host: "long.test", port: 443, family: .ipv4, now: 0)
        #expect(cache.lookup(host: "zero.test", port: 443, family: .ipv4, now: 5 * Self.second - 1) != .resolve)
        #expect(cache.lookup(host: "zero.test", port: 443, family: .ipv4, now: 5 * Self.second) == .resolve)
        #expect(cache.lookup(host: "long.test", port: 443, family: .ipv4, now: 30 * Self.second - 1) != .resolve)
        #expect(cache.lookup(host: "long.test", port: 443, family: .ipv4, now: 30 * Self.second) == .resolve)
    }

    @Test("a failure is kept for the failure TTL; an empty answer is a failure; a timeout is not kept")
    func failuresKeptBriefly() {
        var cache = DNSCache(policy: .init(failureTimeToLive: .seconds(2)))
        let notFound = ResolutionFailure(.notFound, "no.test does not exist")
        _ = cache.lookup(host: "no.test", port: 443, family: .ipv4, now: 0)
        cache.store(.failure(notFound), host: "no.test", port: 443, family: .ipv4, now: 0)
        #expect(cache.lookup(host: "no.test", port: 443, family: .ipv4, now: Self.second) == .failed(notFound))
        #expect(cache.lookup(host: "no.test", port: 443, family: .ipv4, now: 2 * Self.second) == .resolve)

        _ = cache.lookup(host: "v4only.test", port: 443, family: .ipv6, now: 0)
        cache.store(
            .success(ResolvedAddresses(addresses: [], timeToLive: .seconds(60))), host: "v4only.test", port: 443,
            family: .ipv6, now: 0)
        #expect(
            cache.lookup(host: "v4only.test", port: 443, family: .ipv6, now: 1)
                == .failed(ResolutionFailure(.noAddress, "v4only.test has no IPv6 address")))

        _ = cache.lookup(host: "slow.test", port: 443, family: .ipv4, now: 0)
        cache.store(
            .failure(ResolutionFailure(.timedOut, "no answer")), host: "slow.test", port: 443, family: .ipv4, now: 0)
        #expect(cache.lookup(host: "slow.test", port: 443, family: .ipv4, now: 1) == .resolve)
    }

    @Test("an abandoned query lets the next lookup ask")
    func abandonedQuery() {
        var cache = DNSCache()
        #expect(cache.lookup(host: "a.test", port: 443, family: .ipv4, now: 0) == .resolve)
        cache.abandon(host: "a.test", port: 443, family: .ipv4)
        #expect(cache.lookup(host: "a.test", port: 443, family: .ipv4, now: 1) == .resolve)
    }

    @Test("a full cache drops what expired, then what expires first")
    func boundedSize() {
        var cache = DNSCache(policy: .init(maximumEntries: 2))
        for (index, host) in ["a.test", "b.test"].enumerated() {
            _ = cache.lookup(host: host, port: 443, family: .ipv4, now: 0)
            cache.store(
                .success(ResolvedAddresses(addresses: Self.answer.addresses, timeToLive: .seconds(10 * (index + 1)))),
                host: host, port: 443, family: .ipv4, now: 0)
        }
        #expect(cache.lookup(host: "c.test", port: 443, family: .ipv4, now: 1) == .resolve)
        #expect(cache.count == 2)
        #expect(cache.lookup(host: "b.test", port: 443, family: .ipv4, now: 1) == .hit(Self.answer.addresses))
        #expect(
            cache.lookup(host: "a.test", port: 443, family: .ipv4, now: 1) == .resolve, "a expired first, so it went")
        #expect(cache.count == 2)
    }
}

/// curl's `--resolve` entries, parsed with typed errors.
@Suite("DNS overrides")
struct DNSOverridesTests {
    @Test("curl's host:port:address list, IPv6 in brackets or bare, replaces the resolver for that host and port")
    func parsesCurlSyntax() throws {
        let overrides = try DNSOverrides(["API.example.com:443:192.0.2.7,[2001:db8::7]", "localhost:8080:::1"])
        #expect(
            overrides.addresses(host: "api.example.com", port: 443)?.map(\.description) == [
                "192.0.2.7:443", "[2001:db8::7]:443",
            ])
        #expect(overrides.addresses(host: "localhost", port: 8080)?.map(\.description) == ["[::1]:8080"])
        #expect(overrides.addresses(host: "api.example.com", port: 80) == nil)
    }

    @Test("every malformed entry is named in one error")
    func malformedEntries() {
        #expect {
            try DNSOverrides([
                "nohost", ":443:192.0.2.1", "a.test:0:192.0.2.1", "a.test:443:not-an-ip", "ok.test:1:::1",
            ])
        } throws: { error in
            guard let error = error as? RequestError, error.kind == .invalidRequest else { return false }
            return error.problems.map(\.message) == [
                "The DNS override \"nohost\" is not host:port:address[,address]",
                "The DNS override \":443:192.0.2.1\" has no valid host",
                "The DNS override \"a.test:0:192.0.2.1\" has no port from 1 to 65535",
                "The DNS override \"a.test:443:not-an-ip\" has \"not-an-ip\", which is not a numeric IPv4 or IPv6 address",
            ] && error.problems.allSatisfy { $0.kind == .invalidDNSOverride }
        }
    }

    @Test("a request's overrides win over its client's")
    func merging() throws {
        let client = try DNSOverrides(["a.test:443:192.0.2.1", "b.test:443:192.0.2.2"])
        let request = try DNSOverrides(["a.test:443:192.0.2.9"])
        let merged = client.merging(request)
        #expect(merged.addresses(host: "a.test", port: 443)?.map(\.description) == ["192.0.2.9:443"])
        #expect(merged.addresses(host: "b.test", port: 443)?.map(\.description) == ["192.0.2.2:443"])
    }
}
