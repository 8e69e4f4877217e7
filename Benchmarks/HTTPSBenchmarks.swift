import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests per second of the full request path over https, `NativeTransport` (native TLS) against URLSession,
/// sequential and with 16 and 64 concurrent tasks, and of `NativeTransport.send` called directly (the DSL's cost), against `REQUESTKIT_BENCH_HTTPS_URL` (nginx with TLS serving 118 bytes:
/// see `Scripts/start-nginx-tls.sh`); then the cost of a new connection (TCP and TLS handshake, one request, close)
/// against `curl` doing the same in one process, each connection anew (`Connection: close`).
func runHTTPSBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    guard let text = environment["REQUESTKIT_BENCH_HTTPS_URL"], let url = URL(string: text),
        let authority = environment["REQUESTKIT_BENCH_CA"]
    else {
        print("\nhttps: skipped (eval \"$(bash Scripts/start-nginx-tls.sh)\" first)")
        return
    }
    let rounds = Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 5
    let configuration = URLSessionTransport.defaultConfiguration()
    configuration.httpMaximumConnectionsPerHost = 64
    let native = NativeTransport {
        $0.maxConnectionsPerHost = 64
        $0.tls = TLSConfiguration(additionalRoots: [.file(authority)])
    }
    // The last contender calls the transport itself, without the request pipeline: the DSL's overhead is the ratio
    // of "HTTP1 (native TLS)" to it, measured below in alternating slices too.
    let transports: [(String, any Transport, Bool)] = [
        ("URLSession", URLSessionTransport(configuration: configuration), false), ("HTTP1 (native TLS)", native, false),
        ("HTTP1 (native TLS) direct", native, true),
    ]
    print("\nHTTPS: GET \(url.absoluteString) through Request { … }.send(), medians of \(rounds) rounds")
    printContenders(
        url, transports, modes: [("sequential", 1, 1_000), ("16 tasks", 16, 125), ("64 tasks", 64, 50)],
        rounds: rounds)
    let slices = max(1, Int(environment["REQUESTKIT_BENCH_SLICES"] ?? "") ?? 60)
    printPipelineRatios(url, native, name: "HTTP1 (native TLS)", rounds: rounds, slices: slices)
    measureNewConnections(url, native: native, authority: authority, rounds: rounds)
}

/// Milliseconds per new connection (connect, TLS handshake, one request, close), native against curl.
private func measureNewConnections(_ url: URL, native: NativeTransport, authority: String, rounds: Int) {
    let count = 200
    var nativeTimes: [Double] = []
    var curlResumed: [Double] = []
    var curlFull: [Double] = []
    for round in 0...rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        let failures = runBlocking {
            var failures = 0
            for _ in 0..<count {
                let response = try? await Request {
                    Url(url)
                    Using(native)
                    Header.Any(key: "Connection", value: "close")
                }.send()
                if response?.statusCode != 200 { failures += 1 }
            }
            return failures
        }
        let nativeMs = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(count)
        if failures > 0 { print("warning: \(failures) of \(count) native requests failed") }
        let resumed = curlMilliseconds(url, authority: authority, count: count, extra: [])
        let full = curlMilliseconds(url, authority: authority, count: count, extra: ["--no-sessionid"])
        if round > 0 {
            nativeTimes.append(nativeMs)
            if let resumed { curlResumed.append(resumed) }
            if let full { curlFull.append(full) }
        }
    }
    func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }
    let curl = median(curlResumed)
    print("\nNew connection each request (\(count) in a row, Connection: close), ms per connection, medians:")
    print("| client | ms/connection | vs curl |")
    print("|---|---|---|")
    print(
        "| HTTP1 (native TLS, DSL) | \(formatted(median(nativeTimes), decimals: 3)) | "
            + "\(formatted(median(nativeTimes) / curl, decimals: 2))× |")
    print("| curl (one process, sessions resumed) | \(formatted(curl, decimals: 3)) | 1.00× |")
    print(
        "| curl --no-sessionid (full handshakes) | \(formatted(median(curlFull), decimals: 3)) | "
            + "\(formatted(median(curlFull) / curl, decimals: 2))× |")
}

/// Milliseconds per request of one `curl` process fetching `url` `count` times, each on a new connection; nil
/// when curl cannot run.
private func curlMilliseconds(_ url: URL, authority: String, count: Int, extra: [String]) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    var arguments = ["curl", "-s", "-f", "--cacert", authority, "-H", "Connection: close"] + extra
    for _ in 0..<count { arguments += ["-o", "/dev/null", url.absoluteString] }
    process.arguments = arguments
    let start = DispatchTime.now().uptimeNanoseconds
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(count)
}
