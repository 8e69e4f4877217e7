import Foundation
import RequestKitDSL
import RequestKitTesting
import RequestKitURLSession
import RequestKitWebSocket
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
import RequestKitTestSupport
#endif

/// curl's `--resolve` on one request: `Resolve` in the DSL, carried to the transport as
/// ``TransferRequest/dnsOverrides``, over the transport's own overrides, with the pool keeping the connections made
/// for an override apart.
@Suite("DNS overrides per request", .wallClock)
struct RequestDNSOverridesTests {
    static func addresses(_ ips: String..., port: Int) -> [SocketAddress] {
        ips.map { ip in
            guard let address = SocketAddress(ip: ip, port: port) else { preconditionFailure("\(ip) is not numeric") }
            return address
        }
    }

    // MARK: The component

    @Test("Resolve components merge in order: a later one replaces an earlier one's host and port, keeps the rest")
    func componentsMergeInOrder() {
        let parts = Request {
            Url("https://a.test/")
            Resolve("a.test:443:192.0.2.1", "b.test:443:192.0.2.2")
            Resolve("A.test:443:192.0.2.9,[2001:db8::9]")
        }.parts()
        let overrides = parts[option: DNSOverridesKey.self]
        #expect(
            overrides.addresses(host: "a.test", port: 443)?.map(\.description) == [
                "192.0.2.9:443", "[2001:db8::9]:443",
            ])
        #expect(overrides.addresses(host: "b.test", port: 443)?.map(\.description) == ["192.0.2.2:443"])
        #expect(parts.problems.isEmpty)
    }

    @Test("A request's Resolve wins over a client's default for the same host and port")
    func requestOverClientDefaults() {
        let request = Request {
            Url("https://a.test/")
            Resolve("a.test:443:192.0.2.9")
        }.withDefaults {
            Resolve("a.test:443:192.0.2.1", "c.test:443:192.0.2.3")
        }
        let overrides = request.parts()[option: DNSOverridesKey.self]
        #expect(overrides.addresses(host: "a.test", port: 443)?.map(\.description) == ["192.0.2.9:443"])
        #expect(overrides.addresses(host: "c.test", port: 443)?.map(\.description) == ["192.0.2.3:443"])
    }

    @Test("A malformed entry fails the request when it is built, naming the entry")
    func malformedEntryReported() throws {
        let request = Request {
            Url("https://a.test/")
            Resolve("a.test:https:192.0.2.1")
        }
        let error = try #require(throws: RequestError.self) { try request.urlRequest() }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidDNSOverride])
        #expect(
            error.problems.map(\.message) == [
                "The DNS override \"a.test:https:192.0.2.1\" has no port from 1 to 65535"
            ])
    }

    // MARK: The pool key

    @Test("A request's override for the host and port the socket connects to makes a key of its own")
    func keyTable() throws {
        let plain = ConnectionKey(host: "a.test", port: 443)
        let none = DNSOverrides()
        let first = try DNSOverrides(["a.test:443:192.0.2.1"])
        let other = try DNSOverrides(["a.test:443:192.0.2.2"])
        let elsewhere = try DNSOverrides(["a.test:80:192.0.2.1", "b.test:443:192.0.2.1"])
        let socket = try SocketAddress(unixPath: "/tmp/requestkit-test.sock")

        let overridden = plain.overridden(by: first, over: none)
        #expect(overridden.overrideAddresses == Self.addresses("192.0.2.1", port: 443))
        #expect(overridden != plain)
        #expect(overridden == plain.overridden(by: try DNSOverrides(["A.TEST:443:192.0.2.1"]), over: none))
        #expect(overridden.hashValue == plain.overridden(by: first, over: none).hashValue)
        #expect(overridden != plain.overridden(by: other, over: none))
        // The transport's own overrides are its resolver's, for every connection: no key of its own.
        #expect(plain.overridden(by: first, over: first) == plain)
        #expect(plain.overridden(by: other, over: first) != plain)
        #expect(plain.overridden(by: elsewhere, over: none) == plain)
        #expect(plain.overridden(by: none, over: first) == plain)
        #expect(plain.through(socket).overridden(by: first, over: none) == plain.through(socket))
    }

    @Test("Through a proxy, the override that counts is the proxy's host and port: the socket connects there")
    func keyThroughProxy() throws {
        let route = ProxyRoute(
            server: ProxyServer(kind: .http, host: "proxy.test", port: 3128, credentials: nil), proxyTLS: nil,
            originAddress: nil)
        let proxied = ConnectionKey(host: "a.test", port: 443, proxy: route)
        let toProxy = try DNSOverrides(["proxy.test:3128:192.0.2.8"])
        #expect(
            proxied.overridden(by: toProxy, over: DNSOverrides()).overrideAddresses
                == Self.addresses("192.0.2.8", port: 3128))
        #expect(proxied.overridden(by: toProxy, over: DNSOverrides()).proxy == route)
        // The origin's name goes to the proxy, which looks it up: an override of the origin changes nothing here.
        #expect(proxied.overridden(by: try DNSOverrides(["a.test:443:192.0.2.1"]), over: DNSOverrides()) == proxied)
    }

    @Test("URLSessionTransport refuses a request whose host and port are overridden, naming NativeTransport")
    func urlSessionRefuses() async throws {
        var request = TransferRequest(URLRequest(url: try #require(URL(string: "https://a.test/get"))))
        request.dnsOverrides = try DNSOverrides(["a.test:443:127.0.0.1"])
        let error = try await #require(throws: RequestError.self) { try await URLSessionTransport.shared.send(request) }
        #expect(error.kind == .invalidRequest)
        #expect(error.problems.map(\.kind) == [.invalidDNSOverride])
        #expect(
            error.problems.first?.message
                == "URLSession cannot connect a.test port 443 to the addresses a DNS override fixes: send it with "
                + "NativeTransport")
    }

    // MARK: On the wire

    @Test("A made-up name overridden on one request reaches the test server, named in Host, with no lookup")
    func endToEnd() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.proxy = .none }
        let name = "made-up.requestkit.test"
        let response = try await Request {
            Url("http://\(name):\(server.port)/get")
            Resolve("\(name):\(server.port):127.0.0.1")
            Using(transport)
        }.send()
        #expect(response.statusCode == 200)
        #expect(server.requests.map { $0.header("Host") } == ["\(name):\(server.port)"])
        let attempt = try #require(response.metrics.attempts.first)
        #expect(attempt.domainLookup == nil)
        #expect(attempt.remoteAddress == "127.0.0.1:\(server.port)")
        #expect(attempt.addressAttempts.map(\.address) == ["127.0.0.1:\(server.port)"])
    }

    @Test("A connection made for a request's override serves only requests with that override; the transport's own")
    func poolKeepsOverridesApart() async throws {
        let first = try TestServer()
        defer { first.stop() }
        let second = try TestServer()
        defer { second.stop() }
        let name = "pooled.requestkit.test"
        // The transport sends the name to the first server; one request's override sends it to the second.
        let transport = NativeTransport {
            $0.proxy = .none
            $0.dnsOverrides.set(host: name, port: first.port, to: Self.addresses("127.0.0.1", port: first.port))
        }
        var toSecond = DNSOverrides()
        toSecond.set(host: name, port: first.port, to: Self.addresses("127.0.0.1", port: second.port))
        let url = try #require(URL(string: "http://\(name):\(first.port)/get"))
        var newConnections: [Bool] = []
        for overrides in [DNSOverrides(), toSecond, DNSOverrides(), toSecond, toSecond] {
            let response = try await Request {
                Url(url)
                Resolve(overrides)
                Using(transport)
            }.send()
            #expect(response.statusCode == 200)
            newConnections.append(response.metrics.attempts.last?.connect != nil)
        }
        #expect(first.requests.count == 2)
        #expect(second.requests.count == 3)
        #expect(first.stats.totalConnections == 1)
        #expect(second.stats.totalConnections == 1)
        #expect(newConnections == [true, true, false, false, false])
    }

    @Test("A WebSocket definition's Resolve connects its made-up name to the test server")
    func webSocket() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = NativeTransport { $0.proxy = .none }
        let name = "socket.requestkit.test"
        let socket = try await WebSocket {
            Url("ws://\(name):\(server.port)/websocket/echo")
            Resolve("\(name):\(server.port):127.0.0.1")
            Using(transport)
            Timeout(20)
        }.connect()
        try await socket.send(.text("over the override"))
        var iterator = socket.messages.makeAsyncIterator()
        let answer = try await iterator.next()
        try await socket.close(.normalClosure, reason: "done")
        #expect(answer == .text("over the override"))
        #expect(server.requests.map { $0.header("Host") } == ["\(name):\(server.port)"])
    }
}
