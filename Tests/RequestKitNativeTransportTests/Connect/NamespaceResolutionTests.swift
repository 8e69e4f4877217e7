#if canImport(CAres) && canImport(Glibc)
import Foundation
import Testing

import RequestKitConnect
import RequestKitModel
import RequestKitNativeTransport

extension NamespaceTests {
    /// The system resolver against a real DNS server (dnsmasq) on the namespace test host, which logs every query.
    @Suite(
        "Resolution against dnsmasq in a network namespace",
        .enabled(if: NamespaceEnvironment.shouldRun, NamespaceEnvironment.skipReason))
    struct NamespaceResolutionTests {
        @Test("dnsmasq's A and AAAA records for the test name come back with their 60 s TTL, one query each")
        func dualStackName() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            let loop = try #require(AresResolverTests.loop)
            let server = try #require(SocketAddress(ip: NamespaceEnvironment.dnsServer, port: 53))
            let resolver = try await AresResolverTests.OnLoop(loop, options: .init(servers: [server], tries: 2))
            defer { resolver.close() }
            let name = "dual.requestkit.test"
            let queriesBefore = NamespaceEnvironment.loggedQueries("A", name)
            let v4 = try await resolver.resolve(name, .ipv4).get()
            let v6 = try await resolver.resolve(name, .ipv6).get()
            #expect(v4.addresses.map(\.description) == ["\(NamespaceEnvironment.host4):443"])
            #expect(v6.addresses.map(\.description) == ["[\(NamespaceEnvironment.host6)]:443"])
            #expect(v4.timeToLive == .seconds(60))
            #expect(v6.timeToLive == .seconds(60))
            #expect(NamespaceEnvironment.loggedQueries("A", name) == queriesBefore + 1)
        }

        @Test("a name with A records only answers AAAA with no address")
        func ipv4OnlyName() async throws {
            guard NamespaceEnvironment.isRunning else {
                Issue.record("REQUESTKIT_REQUIRE_NETNS is set, but \(NamespaceEnvironment.skipReason)")
                return
            }
            let loop = try #require(AresResolverTests.loop)
            let server = try #require(SocketAddress(ip: NamespaceEnvironment.dnsServer, port: 53))
            let resolver = try await AresResolverTests.OnLoop(loop, options: .init(servers: [server], tries: 2))
            defer { resolver.close() }
            guard case .failure(let failure) = await resolver.resolve("v4.requestkit.test", .ipv6) else {
                Issue.record("an AAAA query for a name with A records only resolved")
                return
            }
            #expect(failure.kind == .noAddress, "\(failure)")
        }
    }
}
#endif
