import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests through a local HTTP proxy with CONNECT (tinyproxy from `Scripts/start-proxies.sh`, named by
/// `https_proxy`) to nginx with TLS (`REQUESTKIT_BENCH_HTTPS_URL`, `REQUESTKIT_BENCH_CA`): requests per second of
/// `NativeTransport` against `URLSessionTransport` over kept-alive tunnels, sequential and with 16 tasks, both reading
/// the proxy from the environment; then the cost of a new tunnel (connect to the proxy, CONNECT, TLS handshake with
/// the origin, one request, close) against `curl -x` doing the same in one process.
func runProxyBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    guard let text = environment["REQUESTKIT_BENCH_HTTPS_URL"], let url = URL(string: text),
        let authority = environment["REQUESTKIT_BENCH_CA"], let proxy = environment["https_proxy"]
    else {
        print(
            "\nproxy: skipped (eval \"$(bash Scripts/start-nginx-tls.sh)\" and \"$(bash Scripts/start-proxies.sh)\", "
                + "then run with https_proxy=\"$REQUESTKIT_HTTP_PROXY\")")
        return
    }
    let rounds = Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 5
    let configuration = URLSessionTransport.defaultConfiguration()
    configuration.httpMaximumConnectionsPerHost = 64
    let native = NativeTransport {
        $0.maxConnectionsPerHost = 64
        $0.tls = TLSConfiguration(additionalRoots: [.file(authority)])
    }
    let transports: [(String, any Transport)] = [
        ("URLSession", URLSessionTransport(configuration: configuration)), ("HTTP1 (native)", native),
    ]
    print("\nProxy: GET \(url.absoluteString) through \(redactedProxy(proxy)) (CONNECT), medians of \(rounds) rounds")
    var results: [String: [TransportSample]] = [:]
    for round in 0...rounds {
        // The contenders swap places each round, so neither always runs first.
        for (name, transport) in round.isMultiple(of: 2) ? transports : transports.reversed() {
            let sequential = TransportSample.measure(url, transport, direct: false, tasks: 1, requestsPerTask: 1_000)
            let concurrent = TransportSample.measure(url, transport, direct: false, tasks: 16, requestsPerTask: 125)
            // Round 0 opens the tunnels and warms code paths up; it is not counted.
            if round > 0 {
                results["\(name) sequential", default: []].append(sequential)
                results["\(name) 16 tasks", default: []].append(concurrent)
            }
        }
    }
    print("| transport | mode | requests/s | CPU µs/request | vs URLSession |")
    print("|---|---|---|---|---|")
    for mode in ["sequential", "16 tasks"] {
        let baseline = TransportSample.median(results["URLSession \(mode)"] ?? [])
        for (name, _) in transports {
            let median = TransportSample.median(results["\(name) \(mode)"] ?? [])
            let ratio = baseline.requestsPerSecond > 0 ? median.requestsPerSecond / baseline.requestsPerSecond : 0
            print(
                "| \(name) | \(mode) | \(formatted(median.requestsPerSecond, decimals: 0)) | "
                    + "\(formatted(median.cpuMicrosecondsPerRequest)) | \(formatted(ratio, decimals: 2))× |")
        }
    }
    measureNewTunnels(url, native: native, proxy: proxy, authority: authority, rounds: rounds)
}

/// Milliseconds per new tunnel, native against `curl -x`: wall time per request (200 in a row, each with
/// `Connection: close`), and the median time from a request's start to the end of its TLS handshake with the origin
/// (RequestKit's metrics against curl's `time_appconnect`).
private func measureNewTunnels(_ url: URL, native: NativeTransport, proxy: String, authority: String, rounds: Int) {
    let count = 200
    var nativeWall: [Double] = []
    var nativeReady: [Double] = []
    var curlWall: [Double] = []
    var curlReady: [Double] = []
    for round in 0...rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        let (failures, readiness) = runBlocking {
            var failures = 0
            var readiness: [Double] = []
            for _ in 0..<count {
                let response = try? await Request {
                    Url(url)
                    Using(native)
                    Header.Any(key: "Connection", value: "close")
                }.send()
                if response?.statusCode != 200 { failures += 1 }
                if let attempt = response?.metrics.attempts.last, let end = attempt.tlsHandshake?.end {
                    let (seconds, attoseconds) = attempt.start.duration(to: end).components
                    readiness.append(Double(seconds) * 1e3 + Double(attoseconds) / 1e15)
                }
            }
            return (failures, readiness)
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(count)
        if failures > 0 { print("warning: \(failures) of \(count) native requests failed") }
        let curl = curlThroughProxy(url, proxy: proxy, authority: authority, count: count)
        if round > 0 {
            nativeWall.append(wall)
            nativeReady.append(median(readiness))
            if let curl {
                curlWall.append(curl.wall)
                curlReady.append(curl.ready)
            }
        }
    }
    print("\nNew tunnel each request (\(count) in a row, Connection: close), ms, medians of \(rounds) rounds:")
    print("| client | ms/request (wall) | vs curl | ms to TLS done with the origin | vs curl |")
    print("|---|---|---|---|---|")
    let (wall, ready) = (median(curlWall), median(curlReady))
    print(
        "| HTTP1 (native, DSL) | \(formatted(median(nativeWall), decimals: 3)) | "
            + "\(formatted(median(nativeWall) / wall, decimals: 2))× | \(formatted(median(nativeReady), decimals: 3)) | "
            + "\(formatted(median(nativeReady) / ready, decimals: 2))× |")
    print(
        "| curl -x (one process) | \(formatted(wall, decimals: 3)) | 1.00× | \(formatted(ready, decimals: 3)) | "
            + "1.00× |")
}

private func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }

/// One `curl -x proxy` process fetching `url` `count` times, each on a new tunnel: wall milliseconds per request
/// and the median `time_appconnect` in milliseconds; nil when curl cannot run or fails.
private func curlThroughProxy(
    _ url: URL, proxy: String, authority: String, count: Int
) -> (wall: Double, ready: Double)? {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    var arguments = ["curl", "-s", "-f", "-x", proxy, "--cacert", authority, "-H", "Connection: close"]
    for _ in 0..<count { arguments += ["-o", "/dev/null", "-w", "%{time_appconnect}\\n", url.absoluteString] }
    process.arguments = arguments
    process.standardOutput = output
    let start = DispatchTime.now().uptimeNanoseconds
    guard (try? process.run()) != nil else { return nil }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(count)
    guard process.terminationStatus == 0 else { return nil }
    let ready = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { Double($0) }.map { $0 * 1e3 }
    return (wall, median(ready))
}

/// The proxy URL without its credentials, for the suite's heading.
private func redactedProxy(_ text: String) -> String {
    guard var components = URLComponents(string: text) else { return "the proxy" }
    components.user = nil
    components.password = nil
    return components.string ?? "the proxy"
}
