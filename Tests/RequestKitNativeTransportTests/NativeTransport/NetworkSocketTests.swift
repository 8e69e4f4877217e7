import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitNativeTransport

@Suite("NetworkSocket: addresses", .wallClock)
struct NetworkSocketTests {
    @Test("IP literals and localhost resolve without a name lookup; other names are left to the lookup thread")
    func addressesWithoutLookup() throws {
        let ipv4 = try #require(try NetworkSocket.addressesWithoutLookup(host: "127.0.0.1", port: 8080))
        #expect(ipv4.map(\.family) == [.ipv4])
        let ipv6 = try #require(try NetworkSocket.addressesWithoutLookup(host: "::1", port: 8080))
        #expect(ipv6.map(\.family) == [.ipv6])
        let local = try #require(try NetworkSocket.addressesWithoutLookup(host: "localhost", port: 8080))
        #expect(!local.isEmpty)
        #expect(try NetworkSocket.addressesWithoutLookup(host: "example.com", port: 80) == nil)
        #expect(try NetworkSocket.addressesWithoutLookup(host: "api.v2", port: 80) == nil)
    }

    @Test("A malformed IP literal is an unknown host, found without a lookup")
    func malformedLiteral() {
        #expect(throws: NetworkSocket.Failure.self) {
            _ = try NetworkSocket.addressesWithoutLookup(host: "300.1.2.3", port: 80)
        }
    }
}
