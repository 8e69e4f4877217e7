#if canImport(Glibc)
import Foundation
import Glibc
import Testing
import RequestKitTestSupport

/// The suites that use the namespace test host, one test at a time: some change its firewall, and some count the
/// queries in its DNS server's log, which a test of another suite running meanwhile would add to.
@Suite("The network namespace test host", .serialized, .wallClock)
struct NamespaceTests {}

/// The test host that `Scripts/netns-test-env.sh start` makes (as root): a network namespace reached over a veth
/// pair by IPv4 and IPv6, with dnsmasq and an HTTP server. Tests that need it are skipped, saying so, when it does
/// not run; with `REQUESTKIT_REQUIRE_NETNS` set (CI) they run and fail instead.
enum NamespaceEnvironment {
    static let interface = "rk-veth0"
    static let dnsServer = "198.18.48.2"
    static let host4 = "198.18.48.2"
    static let host6 = "fd48:5248::2"
    static let queryLog = "/run/requestkit-netns/dns.log"

    /// Whether this side of the veth pair exists.
    static var isRunning: Bool { if_nametoindex(interface) != 0 }

    /// Whether the tests must run (and fail) without it.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["REQUESTKIT_REQUIRE_NETNS"] != nil }

    /// Whether a test that needs it runs.
    static var shouldRun: Bool { isRunning || isRequired }

    /// Why a test that needs it was skipped.
    static let skipReason: Comment =
        "the network namespace test host is not running: as root, eval \"$(bash Scripts/netns-test-env.sh start)\""

    /// The lines of dnsmasq's query log that record a query of `type` (`A`, `AAAA`) for `name`.
    static func loggedQueries(_ type: String, _ name: String) -> Int {
        guard let log = try? String(contentsOfFile: queryLog, encoding: .utf8) else { return 0 }
        return log.split(separator: "\n").filter { $0.contains("query[\(type)] \(name) ") }.count
    }
}
#endif
