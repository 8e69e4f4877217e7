import Foundation
import Testing

@testable import RequestKitModel
@testable import RequestKitNativeTransport

/// The `no_proxy` matcher against curl itself: Data/no-proxy-curl.json holds (variables, URL) cases and whether
/// curl sent each through its proxy, written by Scripts/generate-no-proxy-table.py, which runs curl against a
/// recording proxy on 127.0.0.1.
@Suite("NO_PROXY, matched as curl matches it")
struct NoProxyListTests {
    struct Table: Decodable {
        let producedBy: String
        let cases: [Case]
    }

    struct Case: Decodable, CustomStringConvertible {
        let variables: [String: String]
        let url: String
        let proxied: Bool

        var description: String { "\(variables) \(url)" }
    }

    static let table: Table? = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Data/no-proxy-curl.json")
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(Table.self, from: data)
    }()

    @Test("The table curl answered holds at least 40 cases, proxied and not")
    func tableIsThere() throws {
        let table = try #require(Self.table)
        #expect(table.cases.count >= 40)
        #expect(table.cases.contains { $0.proxied })
        #expect(table.cases.contains { !$0.proxied })
        #expect(table.producedBy.hasPrefix("curl "))
    }

    @Test("Every case goes through the proxy exactly when curl's did", arguments: table?.cases ?? [])
    func agreesWithCurl(_ row: Case) throws {
        let proxy = "http://127.0.0.1:3128"
        var environment = row.variables
        environment["http_proxy"] = proxy
        environment["https_proxy"] = proxy
        let selection = ProxySelection(.environment, environment: environment)
        let url = try #require(URL(string: row.url))
        let target = try HTTP1RequestEncoder.target(of: url)
        let server = try selection.server(host: target.key.host, isSecure: url.scheme == "https")
        #expect((server != nil) == row.proxied)
    }

    @Test("Names match themselves and names below them, on a label boundary, in any case")
    func names() {
        let list = NoProxyList("example.com, .internal")
        #expect(list.matches(host: "example.com"))
        #expect(list.matches(host: "API.Example.Com"))
        #expect(list.matches(host: "db.internal"))
        #expect(list.matches(host: "internal"))
        #expect(!list.matches(host: "badexample.com"))
        #expect(!list.matches(host: "example.com.evil"))
        #expect(!NoProxyList("").matches(host: "example.com"))
        #expect(NoProxyList("*").matches(host: "anything"))
        #expect(!NoProxyList("*, example.com").matches(host: "anything"))
    }

    @Test("IPv4 addresses and ranges, IPv6 addresses in any spelling")
    func addresses() {
        #expect(NoProxyList("10.0.0.0/8").matches(host: "10.1.2.3"))
        #expect(!NoProxyList("10.0.0.0/8").matches(host: "11.1.2.3"))
        #expect(NoProxyList("192.168.0.0/23").matches(host: "192.168.1.200"))
        #expect(!NoProxyList("192.168.0.0/23").matches(host: "192.168.2.1"))
        #expect(NoProxyList("::1").matches(host: "0:0:0:0:0:0:0:1"))
        #expect(NoProxyList("::1").matches(host: "[::1]"))
        #expect(!NoProxyList("::1").matches(host: "::2"))
        #expect(!NoProxyList("127.0.0.1").matches(host: "localhost"))
    }
}
