import Foundation
import RequestKit
import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Issue #48's figures: requests per second over a Unix domain socket against the same nginx over loopback TCP
/// (`REQUESTKIT_BENCH_URL` and `REQUESTKIT_BENCH_UNIX_SOCKET`, from `Scripts/start-nginx.sh`), and the DNS queries
/// 1,000 sequential requests to a name with a 60 s TTL cost, counted in the query log of dnsmasq on the network
/// namespace test host (`Scripts/netns-test-env.sh start`, which sets `REQUESTKIT_NETNS_DNS` and
/// `REQUESTKIT_NETNS_DNS_LOG`).
func runConnectBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    if let text = environment["REQUESTKIT_BENCH_URL"], let url = URL(string: text),
        let socket = environment["REQUESTKIT_BENCH_UNIX_SOCKET"]
    {
        runUnixSocketThroughput(
            url, socket: socket, rounds: Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 5)
    } else {
        print("\nconnect: Unix socket against TCP skipped (eval \"$(bash Scripts/start-nginx.sh)\" first)")
    }
    if let server = environment["REQUESTKIT_NETNS_DNS"], let log = environment["REQUESTKIT_NETNS_DNS_LOG"] {
        runDNSLookupsPerRequest(
            server: server, log: log, port: Int(environment["REQUESTKIT_NETNS_HTTP_PORT"] ?? "") ?? 8080)
    } else {
        print("\nconnect: DNS queries skipped (as root, eval \"$(bash Scripts/netns-test-env.sh start)\" first)")
    }
}

/// The same nginx, the same URL and the same transport settings, kept-alive, through its Unix socket
/// (``NativeTransport/Configuration/unixSocketRoutes``) and over loopback TCP, in alternating rounds: sequentially
/// and with 16 tasks. Medians of `rounds`.
private func runUnixSocketThroughput(_ url: URL, socket: String, rounds: Int) {
    guard let scheme = url.scheme, let host = url.host,
        let origin = URL(string: "\(scheme)://\(host):\(url.port ?? 80)")
    else { return }
    let tcp = NativeTransport {
        $0.maxConnectionsPerHost = 16
        $0.proxy = .none
    }
    var configuration = NativeTransport.Configuration()
    configuration.maxConnectionsPerHost = 16
    configuration.proxy = .none
    do {
        try configuration.unixSocketRoutes.route(origin, through: socket)
    } catch {
        print("connect: \(error)")
        return
    }
    let unix = NativeTransport(configuration: configuration)
    print("\nThe same nginx through its Unix socket and over loopback TCP, kept-alive, medians of \(rounds) rounds:")
    print("| connection | tasks | requests/s | CPU µs/request | vs TCP |")
    print("|---|---|---|---|---|")
    for tasks in [1, 16] {
        let perTask = tasks == 1 ? 5_000 : 500
        for transport in [tcp, unix] {
            _ = TransportSample.measure(url, transport, direct: false, tasks: tasks, requestsPerTask: perTask / 4)
        }
        var overTCP: [TransportSample] = []
        var overUnix: [TransportSample] = []
        for round in 0..<max(rounds, 1) {
            // Alternating which goes first, so neither always runs on a warmer machine.
            for isUnix in round.isMultiple(of: 2) ? [true, false] : [false, true] {
                let sample = TransportSample.measure(
                    url, isUnix ? unix : tcp, direct: false, tasks: tasks, requestsPerTask: perTask)
                if isUnix { overUnix.append(sample) } else { overTCP.append(sample) }
            }
        }
        let (t, u) = (TransportSample.median(overTCP), TransportSample.median(overUnix))
        print(
            "| loopback TCP | \(tasks) | \(formatted(t.requestsPerSecond, decimals: 0)) | "
                + "\(formatted(t.cpuMicrosecondsPerRequest)) | 1.00× |")
        print(
            "| Unix socket | \(tasks) | \(formatted(u.requestsPerSecond, decimals: 0)) | "
                + "\(formatted(u.cpuMicrosecondsPerRequest)) | "
                + "**\(formatted(u.requestsPerSecond / t.requestsPerSecond, decimals: 2))×** |")
    }
}

/// 1,000 requests one after another to `dual.requestkit.test` (`A` and `AAAA`, TTL 60 s) on the namespace test
/// host, whose HTTP server (HTTP/1.0) closes every connection, so each request opens a new one; dnsmasq's query log
/// counts the queries that reached it.
private func runDNSLookupsPerRequest(server: String, log: String, port: Int) {
    let name = "dual.requestkit.test"
    guard let colon = server.lastIndex(of: ":"), let dnsPort = Int(server[server.index(after: colon)...]),
        let address = SocketAddress(ip: String(server[..<colon]), port: dnsPort),
        let url = URL(string: "http://\(name):\(port)/")
    else {
        print("connect: REQUESTKIT_NETNS_DNS is not address:port")
        return
    }
    func queries(_ type: String) -> Int {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return 0 }
        return text.split(separator: "\n").filter { $0.contains("query[\(type)] \(name) ") }.count
    }
    let transport = NativeTransport {
        $0.systemResolverServers = [address]
        $0.proxy = .none
    }
    let requests = 1_000
    let (a, aaaa) = (queries("A"), queries("AAAA"))
    let (succeeded, connections) = runBlocking { () async -> (Int, Int) in
        var succeeded = 0
        var connections = 0
        for _ in 0..<requests {
            guard
                let response = try? await Request({
                    Url(url); Using(transport)
                }).send()
            else { continue }
            if response.statusCode == 200 { succeeded += 1 }
            if response.metrics.attempts.last?.connect != nil { connections += 1 }
        }
        return (succeeded, connections)
    }
    let (askedA, askedAAAA) = (queries("A") - a, queries("AAAA") - aaaa)
    print("\nDNS queries for \(requests) sequential requests to \(name) (TTL 60 s), from dnsmasq's query log:")
    print("| requests answered 200 | new connections | A queries | AAAA queries | lookups per request |")
    print("|---|---|---|---|---|")
    print(
        "| \(succeeded) | \(connections) | \(askedA) | \(askedAAAA) | "
            + "\(formatted(Double(max(askedA, askedAAAA)) / Double(requests), decimals: 3)) |")
}
