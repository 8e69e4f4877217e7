import Foundation
import RequestKitConnect
import RequestKitModel
import Testing

/// `http+unix://` URLs, socket routes and `sockaddr_un` addresses: parsed and checked with typed errors, never cut
/// short.
@Suite("Unix socket addresses")
struct UnixSocketURLTests {
    static func url(_ text: String) throws -> URL { try #require(URL(string: text)) }

    /// The problems of a thrown `RequestError`, or none.
    static func problems(_ body: () throws(RequestError) -> Void) -> [RequestProblem] {
        do {
            try body()
            return []
        } catch {
            return error.kind == .invalidRequest ? error.problems : []
        }
    }

    @Test("the percent-encoded host is the socket path; the path and query are the request's")
    func parsesDockerStyleURL() throws {
        let parsed = try UnixSocketURL(Self.url("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/containers/json?all=1"))
        #expect(parsed.socketPath == "/var/run/docker.sock")
        #expect(parsed.requestTarget == "/v1.43/containers/json?all=1")
        #expect(parsed.socketAddress.description == "unix:/var/run/docker.sock")
        #expect(parsed.socketAddress.family == .unix)
        #expect(!parsed.isSecure)
        let secure = try UnixSocketURL(Self.url("HTTPS+UNIX://%2Ftmp%2Fa%20b.sock"))
        #expect(secure.isSecure)
        #expect(secure.socketPath == "/tmp/a b.sock")
        #expect(secure.requestTarget == "/")
    }

    @Test("another scheme, no path, a port, or a path too long for sockaddr_un are typed errors")
    func rejectsBadURLs() throws {
        let tooLong = "/" + String(repeating: "a", count: SocketAddress.unixPathCapacity)
        let encodedTooLong = try #require(tooLong.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let cases: [(String, RequestProblem.Kind)] = [
            ("http://%2Ftmp%2Fa.sock/", .unsupportedScheme),
            ("http+unix:///info", .malformedURL),
            ("http+unix://%2Ftmp%2Fa.sock:80/info", .malformedURL),
            ("http+unix://user@%2Ftmp%2Fa.sock/info", .malformedURL),
            ("http+unix://\(encodedTooLong)/info", .invalidSocketPath),
            ("http+unix://%2Ftmp%00a.sock/info", .invalidSocketPath),
        ]
        for (text, kind) in cases {
            let url = try Self.url(text)
            let problems = Self.problems { () throws(RequestError) in _ = try UnixSocketURL(url) }
            #expect(problems.map(\.kind) == [kind], "\(text): \(problems)")
        }
    }

    @Test("a path of the longest length the system holds is kept whole; one byte more is refused")
    func pathLengthLimit() throws {
        let longest = "/" + String(repeating: "p", count: SocketAddress.unixPathCapacity - 2)
        let address = try SocketAddress(unixPath: longest)
        #expect(address.host == longest)
        let problems = Self.problems { () throws(RequestError) in _ = try SocketAddress(unixPath: longest + "p") }
        #expect(problems.map(\.kind) == [.invalidSocketPath])
        #expect(
            problems.first?.message
                == "The Unix socket path \"\(longest)p\" has \(longest.utf8.count + 1) bytes; this system takes at most "
                + "\(SocketAddress.unixPathCapacity - 1)")
        #expect(Self.problems { () throws(RequestError) in _ = try SocketAddress(unixPath: "") }.count == 1)
    }

    @Test("a route sends requests under its base URL through its socket; the longest base wins")
    func routes() throws {
        var routes = UnixSocketRoutes()
        try routes.route(Self.url("http://docker"), through: "/var/run/docker.sock")
        try routes.route(Self.url("http://docker/v2/"), through: "/run/v2.sock")
        #expect(routes.socketAddress(for: try Self.url("http://DOCKER:80/v1.43/info"))?.host == "/var/run/docker.sock")
        #expect(routes.socketAddress(for: try Self.url("http://docker/v2/info"))?.host == "/run/v2.sock")
        #expect(routes.socketAddress(for: try Self.url("http://docker/v2x/info"))?.host == "/var/run/docker.sock")
        #expect(routes.socketAddress(for: try Self.url("https://docker/v1.43/info")) == nil)
        #expect(routes.socketAddress(for: try Self.url("http://docker:8080/info")) == nil)
        #expect(routes.socketAddress(for: try Self.url("http://other/info")) == nil)
        let problems = Self.problems { () throws(RequestError) in
            try routes.route(URL(fileURLWithPath: "/tmp"), through: "/run/a.sock")
        }
        #expect(problems.map(\.kind) == [.malformedURL])
    }
}

/// Socket addresses made from numeric text only, and the options the connector applies to a socket.
@Suite("Socket addresses and options")
struct SocketAddressTests {
    @Test("numeric IPv4 and IPv6 addresses keep their port; names and bad ports are refused")
    func numericAddresses() {
        #expect(SocketAddress(ip: "192.0.2.7", port: 443)?.description == "192.0.2.7:443")
        #expect(SocketAddress(ip: "2001:db8::7", port: 8443)?.description == "[2001:db8::7]:8443")
        #expect(SocketAddress(ip: "2001:db8::7", port: 8443)?.family == .ipv6)
        #expect(SocketAddress(ip: "192.0.2.7", port: 443)?.withPort(80).port == 80)
        #expect(SocketAddress(ip: "localhost", port: 80) == nil)
        #expect(SocketAddress(ip: "192.0.2.7", port: 65536) == nil)
        #expect(SocketAddress(ip: "192.0.2.7\u{0}", port: 80) == nil)
        let address = SocketAddress(ip: "192.0.2.7", port: 443)
        #expect(address.flatMap { SocketAddress(bytes: $0.bytes) } == address)
        #expect(SocketAddress(bytes: [0, 0, 1]) == nil)
    }

    #if canImport(Glibc)
    @Test("keep-alive and a local address are set on the socket as asked")
    func optionsReachTheSocket() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try SocketOptionCalls.enable(
            TCPKeepAlive(idle: .seconds(42), interval: .seconds(7), count: 5), on: descriptor)
        #expect(try SocketOptionCalls.value(of: descriptor, SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(try SocketOptionCalls.value(of: descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 42)
        #expect(try SocketOptionCalls.value(of: descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 7)
        #expect(try SocketOptionCalls.value(of: descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 5)

        let local = try #require(SocketAddress(ip: "127.0.0.1", port: 0))
        try SocketOptionCalls.bind(descriptor, to: LocalBinding(addresses: [local]), family: .ipv4)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        #expect(bound.sin_addr.s_addr == inet_addr("127.0.0.1"))
        #expect(bound.sin_port != 0)
    }

    @Test("an unknown interface or an address this host lacks is a system error, not a crash")
    func bindFailures() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        #expect(throws: POSIXError(.ENODEV)) {
            try SocketOptionCalls.bind(descriptor, to: LocalBinding(interface: "rk-none0"), family: .ipv4)
        }
        let foreign = try #require(SocketAddress(ip: "192.0.2.250", port: 0))
        #expect(throws: POSIXError(.EADDRNOTAVAIL)) {
            try SocketOptionCalls.bind(descriptor, to: LocalBinding(addresses: [foreign]), family: .ipv4)
        }
    }
    #endif
}
