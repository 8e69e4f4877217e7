#if canImport(CAres)
import Foundation
import RequestKitModel
import Testing

import RequestKitConnect
import RequestKitNativeTransport
import RequestKitTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

/// The native transport resolving through the system resolver (c-ares on its event loop) against a scripted DNS
/// server on 127.0.0.1, connecting to a `TestServer`: one query per name and family per TTL however many
/// connections, every address tried in the metrics, and overrides that never ask.
@Suite("NativeTransport: resolution through c-ares and the DNS cache", .wallClock)
struct NativeTransportResolutionTests {
    static let name = "svc.requestkit.test"

    @Test("Ten new connections to a name with an hour's TTL ask the DNS server once per family")
    func oneQueryPerFamilyPerTimeToLive() async throws {
        let dns = try ScriptedDNSServer()
        defer { dns.stop() }
        let server = try TestServer()
        defer { server.stop() }
        // An hour, kept whole: the ten requests take far less on the slowest machine, so the count cannot depend
        // on how long they take.
        dns.answer(Self.name, .a, .records(["127.0.0.1"], ttl: 3600))
        dns.answer(Self.name, .aaaa, .records(["::1"], ttl: 3600))
        let transport = NativeTransport {
            $0.systemResolverServers = [dns.address]
            $0.dnsCacheMaximumTimeToLive = 3600
        }
        let url = try #require(URL(string: "http://\(Self.name):\(server.port)/get"))
        var first: Response?
        for _ in 0..<10 {
            let response = try await transport.send(TransferRequest(URLRequest(url: url)))
            #expect(response.statusCode == 200)
            first = first ?? response
            transport.closeIdleConnections()
        }
        #expect(dns.queries(Self.name, .a) == 1)
        #expect(dns.queries(Self.name, .aaaa) == 1)
        let attempt = try #require(first?.metrics.attempts.first)
        #expect(attempt.domainLookup != nil)
        #expect(attempt.addressAttempts.last?.address == "127.0.0.1:\(server.port)")
        #expect(attempt.addressAttempts.last?.outcome == .connected)
        // Nothing listens on [::1] at the server's port: the IPv6 address was tried first and failed.
        #expect(attempt.addressAttempts.first?.address == "[::1]:\(server.port)")
        #expect(attempt.addressAttempts.first?.outcome.name == "failed")
    }

    @Test("An override connects without asking the DNS server")
    func overrideNeverAsks() async throws {
        let dns = try ScriptedDNSServer()
        defer { dns.stop() }
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport {
            $0.systemResolverServers = [dns.address]
            $0.dnsOverrides.set(
                host: Self.name, port: server.port,
                to: [SocketAddress(ip: "127.0.0.1", port: server.port)].compactMap { $0 })
        }
        let url = try #require(URL(string: "http://\(Self.name):\(server.port)/get"))
        let response = try await transport.send(TransferRequest(URLRequest(url: url)))
        #expect(response.statusCode == 200)
        #expect(dns.queries(Self.name, .a) == 0)
        #expect(dns.queries(Self.name, .aaaa) == 0)
        #expect(server.requests.first?.header("Host") == "\(Self.name):\(server.port)")
    }

    @Test("A name the DNS server does not know fails as host not found, naming the name")
    func unknownName() async throws {
        let dns = try ScriptedDNSServer()
        defer { dns.stop() }
        dns.answer("missing.requestkit.test", .a, .error(3))
        dns.answer("missing.requestkit.test", .aaaa, .error(3))
        let transport = NativeTransport { $0.systemResolverServers = [dns.address] }
        let url = try #require(URL(string: "http://missing.requestkit.test:9/get"))
        let error = try await #require(throws: RequestError.self) {
            try await transport.send(TransferRequest(URLRequest(url: url)))
        }
        #expect(error.connectionFailure == .hostNotFound)
        #expect(error.description.contains("missing.requestkit.test"))
    }

    @Test("A resolver of the user's answers instead of the system's")
    func userResolver() async throws {
        struct Fixed: Resolver {
            let port: Int
            func resolve(
                host: String, port: Int, family: SocketAddress.Family
            ) async throws(ResolutionFailure) -> ResolvedAddresses {
                guard family == .ipv4, host == "registry.internal",
                    let address = SocketAddress(ip: "127.0.0.1", port: self.port)
                else { throw ResolutionFailure(.noAddress, "no \(family) address for \(host)") }
                return ResolvedAddresses(addresses: [address], timeToLive: .seconds(30))
            }
        }
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport {
            $0.resolver = Fixed(port: server.port)
            // The resolver runs as a task of the cooperative pool, which a parallel run can keep busy for seconds:
            // this test is about whose answer is used, not how soon.
            $0.connectTimeout = 120
        }
        let url = try #require(URL(string: "http://registry.internal:\(server.port)/get"))
        let response = try await transport.send(TransferRequest(URLRequest(url: url)))
        #expect(response.statusCode == 200)
        #expect(response.metrics.attempts.first?.remoteAddress == "127.0.0.1:\(server.port)")
    }
}
#endif
