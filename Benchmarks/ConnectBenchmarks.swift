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
/// `REQUESTKIT_NETNS_DNS_LOG`), and the time to a connected socket with the test host's IPv6 path silently dropped,
/// against curl and the AsyncHTTPClient peer (`REQUESTKIT_AHC_PEER`).
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
        let port = Int(environment["REQUESTKIT_NETNS_HTTP_PORT"] ?? "") ?? 8080
        runDNSLookupsPerRequest(server: server, log: log, port: port)
        runIPv6Dropped(
            host4: environment["REQUESTKIT_NETNS_HOST4"] ?? "198.18.48.2",
            host6: environment["REQUESTKIT_NETNS_HOST6"] ?? "fd48:5248::2", port: port,
            rounds: Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 11)
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

/// The time to a connected socket and to the response's first byte with the test host's IPv6 TCP silently dropped
/// (`netns-test-env.sh drop ipv6`), both addresses given (IPv6 first) so that no lookup is timed: RequestKit through
/// ``DNSOverrides`` on a new transport each round (from the attempt's start), with its default attempt delay and with
/// curl's; curl's `--resolve` with the same addresses (`-w`); and, when `REQUESTKIT_AHC_PEER` names the peer's
/// `AHCBenchmarks`, AsyncHTTPClient on a new `HTTPClient` (to the response head), in a process of its own per round
/// with the name in an `/etc/hosts` of its own (a private mount namespace: `unshare -m`, as root), since it takes no
/// addresses. Taking turns; medians of `rounds`, and which address each connected to.
private func runIPv6Dropped(host4: String, host6: String, port: Int, rounds: Int) {
    let name = "dual.requestkit.test"
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Scripts/netns-test-env.sh").standardizedFileURL.path
    guard output(of: "/bin/bash", [script, "drop", "ipv6"]) != nil, let url = URL(string: "http://\(name):\(port)/")
    else {
        print("connect: could not drop the test host's IPv6 (netns-test-env.sh drop ipv6)")
        return
    }
    defer { _ = output(of: "/bin/bash", [script, "drop", "none"]) }
    let entry = "\(name):\(port):[\(host6)],\(host4)"
    let peer = ProcessInfo.processInfo.environment["REQUESTKIT_AHC_PEER"]
    let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-connect-hosts")
    if peer != nil {
        // IPv6 first, as the other clients are given them.
        let lines = "127.0.0.1 localhost\n\(host6) \(name)\n\(host4) \(name)\n"
        try? Data(lines.utf8).write(to: hosts)
    }
    defer { try? FileManager.default.removeItem(at: hosts) }
    // RequestKit's default attempt delay (RFC 8305's 250 ms), and curl's 200 ms.
    let delays = [0.25, 0.2]
    var connected: [[Double]] = delays.map { _ in [] }
    var firstByte: [[Double]] = delays.map { _ in [] }
    var won: [[String: Int]] = delays.map { _ in [:] }
    var curlConnected: [Double] = []
    var curlFirstByte: [Double] = []
    var curlWon: [String: Int] = [:]
    var peerHead: [Double] = []
    var peerFailures = 0
    func milliseconds(_ from: ContinuousClock.Instant, _ to: ContinuousClock.Instant) -> Double {
        let (seconds, attoseconds) = from.duration(to: to).components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }
    for _ in 0..<max(rounds, 1) {
        for (index, delay) in delays.enumerated() {
            var configuration = NativeTransport.Configuration()
            configuration.proxy = .none
            configuration.connectionAttemptDelay = delay
            configuration.dnsOverrides = (try? DNSOverrides([entry])) ?? DNSOverrides()
            let transport = NativeTransport(configuration: configuration)
            let attempt = runBlocking { () async -> RequestMetrics.Attempt? in
                try? await Request({
                    Url(url); Using(transport)
                }).send().metrics.attempts.last
            }
            if let attempt, let end = attempt.connect?.end {
                connected[index].append(milliseconds(attempt.start, end))
                if let first = attempt.firstResponseByte { firstByte[index].append(milliseconds(attempt.start, first)) }
                won[index][attempt.remoteAddress ?? "?", default: 0] += 1
            }
        }
        let curl = output(
            of: "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "--resolve", entry, "-w", "%{time_connect} %{time_starttransfer} %{remote_ip}",
                url.absoluteString,
            ])
        let fields = curl?.split(separator: " ") ?? []
        if fields.count == 3, let connect = Double(fields[0]), let first = Double(fields[1]) {
            curlConnected.append(connect * 1e3)
            curlFirstByte.append(first * 1e3)
            curlWon[String(fields[2]), default: 0] += 1
        }
        if let peer {
            let printed = output(
                of: "/usr/bin/unshare",
                ["-m", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$1\" connect", hosts.path, peer],
                environment: [
                    "REQUESTKIT_AHC_CONNECT_URL": url.absoluteString,
                    "REQUESTKIT_AHC_WARM_URL": "http://\(host4):\(port)/",
                ])
            let words = printed?.split(whereSeparator: \.isWhitespace) ?? []
            if words.count == 3, words[0] == "connect", words[2] == "200", let head = Double(words[1]) {
                peerHead.append(head)
            } else {
                peerFailures += 1
            }
        }
    }
    func median(_ values: [Double]) -> String {
        values.isEmpty ? "–" : formatted(values.sorted()[values.count / 2], decimals: 1)
    }
    func winners(_ counts: [String: Int]) -> String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }
    print(
        "\nIPv6 silently dropped: ms from the request's start, both addresses given (IPv6 first), medians of \(rounds):"
    )
    print("| client | attempt delay | connected | first response byte | connected to |")
    print("|---|---|---|---|---|")
    for (index, delay) in delays.enumerated() {
        print(
            "| RequestKit | \(Int(delay * 1000)) ms | \(median(connected[index])) | \(median(firstByte[index])) | "
                + "\(winners(won[index])) |")
    }
    print(
        "| curl \(curlVersion()) | 200 ms | \(median(curlConnected)) | \(median(curlFirstByte)) | "
            + "\(winners(curlWon)) |")
    if peer != nil {
        print(
            "| AsyncHTTPClient (swift-nio's Happy Eyeballs) | 250 ms | – | \(median(peerHead)) (response head) | "
                + "\(peerHead.count) of \(rounds) answered 200\(peerFailures > 0 ? ", \(peerFailures) failed" : "") |")
    } else {
        print(
            "AsyncHTTPClient skipped: set REQUESTKIT_AHC_PEER to the AHCBenchmarks built by Scripts/build-peer-ahc.sh")
    }
}

/// curl's version number, as `curl --version` prints it first.
private func curlVersion() -> String {
    let words = output(of: "/usr/bin/curl", ["--version"])?.split(separator: " ") ?? []
    return words.count > 1 ? String(words[1]) : "?"
}

/// What `executable` wrote to its standard output; nil when it could not run or did not exit with 0.
private func output(of executable: String, _ arguments: [String], environment: [String: String] = [:]) -> String? {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
}
