import Foundation
import RequestKitConventions
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What every integration says of a request's server, in OpenTelemetry's terms, for the URLs clients meet.
@Suite("HTTP client conventions")
struct HTTPClientConventionsTests {
    static let servers: [(url: String, address: String?, port: Int?)] = [
        ("http://127.0.0.1:8080/a", "127.0.0.1", 8080),
        ("https://api.example.com/v1?key=1", "api.example.com", 443),
        ("http://Example.COM/", "Example.COM", 80),
        ("http://[::1]:8443/", "::1", 8443),
        ("http://[fe80::1%25eth0]/", "fe80::1%eth0", 80),
        ("http://exa%41mple.com/", "exaAmple.com", 80),
        ("https://user:secret@h.example:81/", "h.example", 81),
        ("wss://feed.example/socket", "feed.example", 443),
        ("file:///tmp/x", nil, nil),
    ]

    @Test("server.address is the host, percent-decoded, without brackets; server.port defaults by scheme")
    func server() throws {
        for (text, address, port) in Self.servers {
            let request = URLRequest(url: try #require(URL(string: text)))
            #expect(HTTPClientConventions.serverAddress(of: request) == address, "\(text)")
            #expect(HTTPClientConventions.serverPort(of: request) == port, "\(text)")
        }
    }
}
