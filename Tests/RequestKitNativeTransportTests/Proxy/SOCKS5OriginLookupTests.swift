#if canImport(CAres)
import Foundation
import RequestKitDSL
import RequestKitTesting
import Testing

import RequestKitModel
import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

/// Through a `socks5://` proxy (microsocks) the transport looks the origin's name up itself and gives the proxy an
/// address: as a direct connection does, through its overrides, its DNS cache and its resolver (c-ares on the event
/// loop, here asking a scripted DNS server on 127.0.0.1), never a blocking `getaddrinfo`.
@Suite("SOCKS5: the origin's address from the transport's resolver", .wallClock)
struct SOCKS5OriginLookupTests {
    static let name = "origin.requestkit.test"

    private func transport(proxyPort: Int, dns: ScriptedDNSServer) -> NativeTransport {
        NativeTransport {
            $0.proxy = .socks5(host: "127.0.0.1", port: proxyPort)
            $0.systemResolverServers = [dns.address]
            $0.dnsCacheMaximumTimeToLive = 3600
            $0.connectTimeout = 10
        }
    }

    @Test(
        "The origin's name is asked of the transport's DNS server once per TTL, and the proxy is given its address",
        .enabled(if: RealProxy.isRunnable("microsocks")))
    func resolvedOncePerTimeToLive() async throws {
        let proxy = try await RealProxy.microsocks()
        defer { proxy.stop() }
        let dns = try ScriptedDNSServer()
        defer { dns.stop() }
        let server = try TestServer()
        defer { server.stop() }
        // An hour, kept whole: the requests take far less, so the count cannot depend on how long they take.
        dns.answer(Self.name, .a, .records(["127.0.0.1"], ttl: 3600))
        dns.answer(Self.name, .aaaa, .records(["::1"], ttl: 3600))
        let transport = transport(proxyPort: proxy.port, dns: dns)
        for _ in 0..<3 {
            let response = try await Request {
                Url("http://\(Self.name):\(server.port)/get")
                Using(transport)
            }.send()
            #expect(response.statusCode == 200)
            transport.closeIdleConnections()
        }
        // The system's resolver does not know the name: only the scripted server's answer could reach the origin.
        #expect(dns.queries(Self.name, .a) == 1)
        // IPv4 answered, so the proxy got an IPv4 address and IPv6 was never asked.
        #expect(dns.queries(Self.name, .aaaa) == 0)
        #expect(server.requests.map { $0.header("Host") } == Array(repeating: "\(Self.name):\(server.port)", count: 3))
        #expect(server.stats.totalConnections == 3)
    }

    @Test(
        "A request's DNS override gives the proxy the origin's address without asking",
        .enabled(if: RealProxy.isRunnable("microsocks")))
    func requestOverride() async throws {
        let proxy = try await RealProxy.microsocks()
        defer { proxy.stop() }
        let dns = try ScriptedDNSServer()
        defer { dns.stop() }
        let server = try TestServer()
        defer { server.stop() }
        let transport = transport(proxyPort: proxy.port, dns: dns)
        let response = try await Request {
            Url("http://\(Self.name):\(server.port)/status/201")
            Resolve("\(Self.name):\(server.port):127.0.0.1")
            Using(transport)
        }.send()
        #expect(response.statusCode == 201)
        #expect(dns.queries(Self.name, .a) == 0)
        #expect(dns.queries(Self.name, .aaaa) == 0)
        #expect(server.requests.map { $0.header("Host") } == ["\(Self.name):\(server.port)"])
    }

    @Test(
        "A name the DNS server does not know fails as host not found, naming the name, before the proxy is reached",
        .enabled(if: RealProxy.isRunnable("microsocks")))
    func unknownName() async throws {
        let proxy = try await RealProxy.microsocks()
        defer { proxy.stop() }
        let dns = try ScriptedDNSServer()
        defer { dns.stop() }
        dns.answer(Self.name, .a, .error(3))
        dns.answer(Self.name, .aaaa, .error(3))
        let transport = transport(proxyPort: proxy.port, dns: dns)
        let error = try await #require(throws: RequestError.self) {
            try await Request {
                Url("http://\(Self.name):9/get")
                Using(transport)
            }.send()
        }
        #expect(error.connectionFailure == .hostNotFound)
        #expect(error.description.contains(Self.name))
        #expect(dns.queries(Self.name, .a) == 1)
        #expect(dns.queries(Self.name, .aaaa) == 1)
    }
}
#endif
