import Foundation
import RequestKit

/// Requests per second over HTTP/2, against `REQUESTKIT_BENCH_H2_URL` (nginx with TLS and `http2` serving 118 bytes:
/// `HTTP2=1 bash Scripts/start-nginx-tls.sh`): the native transport through the DSL and called directly,
/// sequentially and with 16, 64 and 256 concurrent tasks (one host: the pool opens a second connection only past
/// nginx's 128 streams), the DSL's cost measured in alternating slices, and `h2load` (one connection, `-m` 64 and 256
/// streams at once) as the ceiling. `Scripts/limit-rounds.sh` runs AsyncHTTPClient beside it.
func runHTTP2Benchmarks() {
    let environment = ProcessInfo.processInfo.environment
    guard let text = environment["REQUESTKIT_BENCH_H2_URL"], let url = URL(string: text),
        let authority = environment["REQUESTKIT_BENCH_CA"]
    else {
        print("\nh2: skipped (eval \"$(HTTP2=1 bash Scripts/start-nginx-tls.sh)\" first)")
        return
    }
    let rounds = Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 5
    let native = NativeTransport {
        $0.maxConnectionsPerHost = 64
        $0.tls = TLSConfiguration(additionalRoots: [.file(authority)])
    }
    print("\nHTTP/2: GET \(url.absoluteString) through Request { … }.send(), medians of \(rounds) rounds")
    printContenders(
        url, [("HTTP/2 (native)", native, false), ("HTTP/2 (native) direct", native, true)],
        modes: [("sequential", 1, 1_000), ("16 tasks", 16, 250), ("64 tasks", 64, 100), ("256 tasks", 256, 40)],
        rounds: rounds)
    let slices = max(1, Int(environment["REQUESTKIT_BENCH_SLICES"] ?? "") ?? 60)
    printPipelineRatios(url, native, name: "HTTP/2 (native)", rounds: rounds, slices: slices)
    printH2Load(url, rounds: rounds)
}

/// `h2load` against `url` on one connection with 64 and 256 streams at once: medians of requests per second.
private func printH2Load(_ url: URL, rounds: Int) {
    print("\nh2load -c1 -m N -n 20000 against the same URL, medians of \(rounds) runs:")
    print("| client | mode | requests/s |")
    print("|---|---|---|")
    for streams in [64, 256] {
        var rates: [Double] = []
        for _ in 0..<rounds {
            guard let rate = h2loadRate(url, streams: streams) else {
                print("| h2load | \(streams) streams | (h2load did not run: apt-get install nghttp2-client) |")
                return
            }
            rates.append(rate)
        }
        let median = rates.sorted()[rates.count / 2]
        print("| h2load | \(streams) streams | \(formatted(median, decimals: 0)) |")
    }
}

/// The requests per second one `h2load` run reports; nil when it cannot run or reports none.
private func h2loadRate(_ url: URL, streams: Int) -> Double? {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["h2load", "-c", "1", "-m", String(streams), "-n", "20000", url.absoluteString]
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    // "finished in 1.23s, 16260.16 req/s, 3.21MB/s"
    for line in output.split(separator: "\n") where line.hasPrefix("finished in") {
        let parts = line.split(separator: ",")
        guard parts.count >= 2 else { continue }
        let rate = parts[1].trimmingCharacters(in: .whitespaces).split(separator: " ").first
        return rate.flatMap { Double($0) }
    }
    return nil
}
