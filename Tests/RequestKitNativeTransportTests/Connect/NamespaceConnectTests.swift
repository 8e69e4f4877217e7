#if canImport(CAres) && canImport(Glibc)
import Foundation
import RequestKitModel
import RequestKitTestSupport
import Testing

import RequestKitConnect
import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NamespaceTests {
    /// The native transport's address race against the namespace test host: dnsmasq answers `A` and `AAAA` for the
    /// test name, Python's HTTP server listens on both families, and the host's firewall silently drops one family's
    /// TCP (or both), as a broken IPv6 path does. The tests change the firewall, so they run one at a time.
    @Suite(
        "Happy Eyeballs against the network namespace test host", .serialized,
        .enabled(if: NamespaceEnvironment.shouldRun, NamespaceEnvironment.skipReason))
    struct NamespaceConnectTests {
        static let name = "dual.requestkit.test"
        static let v6 = "[\(NamespaceEnvironment.host6)]:8080"
        static let v4 = "\(NamespaceEnvironment.host4):8080"

        /// Makes the test host drop `family`'s TCP (`ipv6`, `ipv4`, `both`, `none`).
        static func drop(_ family: String) async throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../../Scripts/netns-test-env.sh"
            ).standardizedFileURL.path
            let run = try await ChildProcess.run("/bin/bash", [script, "drop", family])
            #expect(
                run.termination == .exited(0),
                "netns-test-env.sh drop \(family) \(run.termination): \(String(decoding: run.errors, as: UTF8.self))")
        }

        static func transport(connectTimeout: Double = 10) throws -> NativeTransport {
            let server = try #require(SocketAddress(ip: NamespaceEnvironment.dnsServer, port: 53))
            return NativeTransport {
                $0.systemResolverServers = [server]
                $0.connectTimeout = connectTimeout
                $0.proxy = .none
            }
        }

        static func send(_ transport: NativeTransport) async throws -> Response {
            let url = try #require(URL(string: "http://\(name):8080/"))
            return try await transport.send(TransferRequest(URLRequest(url: url, timeoutInterval: 30)))
        }

        @Test("IPv6 silently dropped: IPv4 starts after the attempt delay and wins; the IPv6 attempt lost the race")
        func ipv6Dropped() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            try await Self.drop("ipv6")
            let response = try await Self.send(try Self.transport())
            #expect(response.statusCode == 200)
            let attempt = try #require(response.metrics.attempts.first)
            #expect(attempt.addressAttempts.map(\.address) == [Self.v6, Self.v4])
            #expect(attempt.addressAttempts.map(\.outcome) == [.lostRace, .connected])
            let tried = attempt.addressAttempts
            if tried.count == 2 {
                // The IPv4 attempt waited the attempt delay (250 ms) beside the hanging IPv6 one, no longer than the
                // connect timeout.
                let gap = tried[1].interval.start - tried[0].interval.start
                #expect(gap >= .milliseconds(250))
                #expect(gap < .seconds(10))
            }
            #expect(attempt.remoteAddress == Self.v4)
        }

        @Test("IPv4 silently dropped: IPv6 goes first and wins")
        func ipv4Dropped() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            try await Self.drop("ipv4")
            let response = try await Self.send(try Self.transport())
            #expect(response.statusCode == 200)
            let attempt = try #require(response.metrics.attempts.first)
            #expect(attempt.addressAttempts.first?.address == Self.v6)
            #expect(attempt.addressAttempts.first?.outcome == .connected)
            // On a slow machine the IPv4 attempt may have started beside it: then it lost.
            #expect(attempt.addressAttempts.dropFirst().allSatisfy { $0.outcome == .lostRace })
            #expect(attempt.remoteAddress == Self.v6)
        }

        @Test("Both families dropped: one timeout at the connect timeout, naming every address tried")
        func bothDropped() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            try await Self.drop("both")
            let error = try await #require(throws: RequestError.self) {
                try await Self.send(try Self.transport(connectTimeout: 1))
            }
            try await Self.drop("none")
            #expect(error.kind == .timedOut)
            let detail = try #require(error.detail)
            #expect(
                detail.hasPrefix("Could not connect to \(Self.name) port 8080 (timed out): \(Self.v6) timed out after"))
            #expect(detail.contains("; \(Self.v4) timed out after"))
            #expect(detail.hasSuffix(", within the connect timeout of 1 s"))
            let attempt = try #require(error.metrics?.attempts.first)
            #expect(attempt.addressAttempts.map(\.outcome) == [.timedOut, .timedOut])
        }

        @Test("An AAAA query never answered: IPv4 connects after the resolution delay")
        func aaaaNeverAnswered() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            try await Self.drop("none")
            // dnsmasq answers at once; the scripted server on 127.0.0.1 answers A with the test host and AAAA never.
            let dns = try ScriptedDNSServer()
            defer { dns.stop() }
            dns.answer("late.requestkit.test", .a, .records([NamespaceEnvironment.host4], ttl: 60))
            dns.answer("late.requestkit.test", .aaaa, .silence)
            let transport = NativeTransport {
                $0.systemResolverServers = [dns.address]
                $0.proxy = .none
            }
            let url = try #require(URL(string: "http://late.requestkit.test:8080/"))
            let response = try await transport.send(TransferRequest(URLRequest(url: url, timeoutInterval: 30)))
            #expect(response.statusCode == 200)
            let attempt = try #require(response.metrics.attempts.first)
            #expect(attempt.addressAttempts.map(\.address) == [Self.v4])
            let lookup = try #require(attempt.domainLookup)
            let connect = try #require(attempt.addressAttempts.first?.interval)
            // The A answer waited the resolution delay (50 ms) for the AAAA answer, then IPv4 went alone.
            #expect(connect.start - lookup.start >= .milliseconds(50))
        }

        @Test("A late AAAA answer: IPv4 starts after the resolution delay, IPv6 joins when answered")
        func aaaaLate() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            try await Self.drop("ipv4")
            let dns = try ScriptedDNSServer()
            defer { dns.stop() }
            dns.answer("slow.requestkit.test", .a, .records([NamespaceEnvironment.host4], ttl: 60))
            dns.answer(
                "slow.requestkit.test", .aaaa, .records([NamespaceEnvironment.host6], ttl: 60),
                after: .milliseconds(150))
            let transport = NativeTransport {
                $0.systemResolverServers = [dns.address]
                $0.proxy = .none
            }
            let url = try #require(URL(string: "http://slow.requestkit.test:8080/"))
            let response = try await transport.send(TransferRequest(URLRequest(url: url, timeoutInterval: 30)))
            try await Self.drop("none")
            #expect(response.statusCode == 200)
            let attempt = try #require(response.metrics.attempts.first)
            // IPv4 (dropped) went first, alone; the late IPv6 address joined and won.
            #expect(attempt.addressAttempts.map(\.address) == [Self.v4, Self.v6])
            #expect(attempt.addressAttempts.map(\.outcome) == [.lostRace, .connected])
        }

        @Test("Twenty new connections to a name with a 60 s TTL: one query per family in all, in dnsmasq's log")
        func oneQueryPerTimeToLive() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            try await Self.drop("none")
            let transport = try Self.transport()
            let (a, aaaa) = (
                NamespaceEnvironment.loggedQueries("A", Self.name),
                NamespaceEnvironment.loggedQueries("AAAA", Self.name)
            )
            for _ in 0..<20 {
                #expect(try await Self.send(transport).statusCode == 200)
                transport.closeIdleConnections()
            }
            #expect(NamespaceEnvironment.loggedQueries("A", Self.name) == a + 1)
            #expect(NamespaceEnvironment.loggedQueries("AAAA", Self.name) == aaaa + 1)
        }
    }
}
#endif
