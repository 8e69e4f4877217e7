// The AsyncHTTPClient side of RequestKit's `Benchmarks transport` and `Benchmarks https`: the same requests against
// the same nginx, made the way an application would make them with AsyncHTTPClient (one HTTPClient, the async
// `execute` API, the body collected), so the two can be compared in one session (Scripts/limit-rounds.sh).
//
//   AHCBenchmarks transport   # GET $REQUESTKIT_BENCH_URL: 2,000 sequential, 4,000 from 16 tasks, 6,400 from 64
//   AHCBenchmarks https       # GET $REQUESTKIT_BENCH_HTTPS_URL, $REQUESTKIT_BENCH_CA added to the trust roots:
//                             # 1,000 sequential, 2,000 from 16 tasks, 3,200 from 64
//   AHCBenchmarks h2          # GET $REQUESTKIT_BENCH_H2_URL (nginx with http2: AsyncHTTPClient negotiates h2):
//                             # 1,000 sequential, 4,000 from 16 tasks, 6,400 from 64, 10,240 from 256
//   AHCBenchmarks profile transport|https|h2 <tasks> <seconds>   # one mode, a line per second and the medians, for
//                             # Scripts/limit-rounds.sh (a process per contender and round)
//   AHCBenchmarks connect     # one GET of $REQUESTKIT_AHC_CONNECT_URL on a new HTTPClient (no connection pooled),
//                             # after a warm-up GET of $REQUESTKIT_AHC_WARM_URL on another, printing
//                             # `connect <ms to the response head> <status>`: RequestKit's `Benchmarks connect` runs
//                             # it once per round, a process each, beside itself and curl (BENCHMARKS.md, "Connection setup")
//
// Each mode runs a warm-up round and then REQUESTKIT_BENCH_ROUNDS rounds (default 5); the medians are printed as
// `| AsyncHTTPClient | <mode> | <requests/s> | <CPU µs/request> |`, with every round's figures after them.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL

#if canImport(Glibc)
import Glibc
#endif

/// One timed batch: requests per second over the wall clock and the process's CPU time per request.
struct Sample {
    var requestsPerSecond: Double
    var cpuMicrosecondsPerRequest: Double
}

/// User plus system CPU time of this process so far, in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
    getrusage(RUSAGE_SELF, &usage)
    #else
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #endif
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// Sends `tasks × requestsPerTask` GET requests to `url`, `tasks` at a time, each reading the whole body and
/// checking for status 200 and 118 bytes, and times them.
func measure(_ client: HTTPClient, _ url: String, tasks: Int, requestsPerTask: Int) async -> Sample {
    let total = tasks * requestsPerTask
    let cpuBefore = processCPUSeconds()
    let start = DispatchTime.now().uptimeNanoseconds
    let failures = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                var failures = 0
                for _ in 0..<requestsPerTask {
                    do {
                        let request = HTTPClientRequest(url: url)
                        let response = try await client.execute(request, timeout: .seconds(30))
                        let body = try await response.body.collect(upTo: 1 << 20)
                        if response.status != .ok || body.readableBytes != 118 { failures += 1 }
                    } catch {
                        failures += 1
                    }
                }
                return failures
            }
        }
        return await group.reduce(0, +)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let cpu = processCPUSeconds() - cpuBefore
    if failures > 0 { print("warning: \(failures) of \(total) requests failed or were not 118 bytes") }
    return Sample(requestsPerSecond: Double(total) / seconds, cpuMicrosecondsPerRequest: cpu / Double(total) * 1e6)
}

/// Runs a warm-up round and `rounds` counted rounds of every mode, in turn within each round as RequestKit's
/// suites do, and prints the medians and each round's figures.
func run(
    _ title: String, _ client: HTTPClient, _ url: String, rounds: Int, modes: [(name: String, tasks: Int, each: Int)]
) async {
    print("\n\(title): GET \(url) with AsyncHTTPClient, medians of \(rounds) rounds after a warm-up round")
    var results: [String: [Sample]] = [:]
    for round in 0...rounds {
        for mode in modes {
            let sample = await measure(client, url, tasks: mode.tasks, requestsPerTask: mode.each)
            if round > 0 { results[mode.name, default: []].append(sample) }
        }
    }
    print("| client | mode | requests/s | CPU µs/request |")
    print("|---|---|---|---|")
    for mode in modes {
        let samples = results[mode.name] ?? []
        let rates = samples.map(\.requestsPerSecond).sorted()
        let cpu = samples.map(\.cpuMicrosecondsPerRequest).sorted()
        guard !rates.isEmpty else { continue }
        print(
            "| AsyncHTTPClient | \(mode.name) | \(String(format: "%.0f", rates[rates.count / 2])) | "
                + "\(String(format: "%.1f", cpu[cpu.count / 2])) |")
    }
    for mode in modes {
        let rounds = (results[mode.name] ?? []).map {
            String(format: "%.0f/s %.1fµs", $0.requestsPerSecond, $0.cpuMicrosecondsPerRequest)
        }
        print("rounds, \(mode.name): \(rounds.joined(separator: ", "))")
    }
}

/// The connection pool of both suites: keep-alive, up to 64 connections per host (RequestKit's benchmark allows
/// 64), HTTP/1.1 as nginx serves it.
func configuration(tls: TLSConfiguration?) -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
    return configuration
}

/// Shuts `client` down with its async API (top-level code would pick the overload returning a future).
func shutDown(_ client: HTTPClient) async {
    do {
        try await client.shutdown()
    } catch {
        print("warning: shutting the client down failed: \(error)")
    }
}

let environment = ProcessInfo.processInfo.environment
let rounds = Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 5

// One contender of one mode for Scripts/limit-rounds.sh, a process of its own, printed as RequestKit's
// `Benchmarks transport-profile` prints: a line per second, then `median: <requests/s> requests/s, <µs> CPU µs/request`.
if CommandLine.arguments.dropFirst().first == "profile" {
    let options = Array(CommandLine.arguments.dropFirst(2))
    let numbers = options.compactMap(Int.init)
    let tasks = max(numbers.first ?? 1, 1)
    let seconds = max(numbers.dropFirst().first ?? 3, 1)
    let scheme = options.first { ["transport", "https", "h2"].contains($0) } ?? "transport"
    let variable =
        ["transport": "REQUESTKIT_BENCH_URL", "https": "REQUESTKIT_BENCH_HTTPS_URL"][scheme]
        ?? "REQUESTKIT_BENCH_H2_URL"
    guard let url = environment[variable] else {
        print("profile: set \(variable) (see BENCHMARKS.md)")
        exit(2)
    }
    var tls: TLSConfiguration?
    if scheme != "transport", let authority = environment["REQUESTKIT_BENCH_CA"] {
        var configured = TLSConfiguration.makeClientConfiguration()
        configured.additionalTrustRoots = [.file(authority)]
        tls = configured
    }
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(tls: tls))
    // About 4,000 requests a second's sample, as RequestKit's profile sends; a warm-up sample first.
    let each = max(1, 4_000 / tasks)
    _ = await measure(client, url, tasks: tasks, requestsPerTask: max(1, each / 4))
    var samples: [Sample] = []
    for _ in 0..<seconds { samples.append(await measure(client, url, tasks: tasks, requestsPerTask: each)) }
    for sample in samples {
        print(
            String(
                format: "%.0f requests/s, %.1f CPU µs/request", sample.requestsPerSecond,
                sample.cpuMicrosecondsPerRequest))
    }
    let rates = samples.map(\.requestsPerSecond).sorted()
    let cpu = samples.map(\.cpuMicrosecondsPerRequest).sorted()
    print(
        String(format: "median: %.0f requests/s, %.1f CPU µs/request", rates[rates.count / 2], cpu[cpu.count / 2])
            + " (\(tasks) tasks, AsyncHTTPClient, \(scheme))")
    print("requests sent: \(samples.count * each * tasks)")
    await shutDown(client)
    exit(0)
}

let arguments = Set(CommandLine.arguments.dropFirst())
let suites = arguments.isEmpty ? ["transport", "https"] : arguments
let unknown = suites.subtracting(["transport", "https", "h2", "connect"])
guard unknown.isEmpty else {
    print(
        "usage: AHCBenchmarks [transport] [https] [h2] [connect]   "
            + "(unknown: \(unknown.sorted().joined(separator: ", ")))")
    exit(2)
}

if suites.contains("transport") {
    if let url = environment["REQUESTKIT_BENCH_URL"] {
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(tls: nil))
        await run(
            "Transport", client, url, rounds: rounds,
            modes: [("sequential", 1, 2_000), ("16 tasks", 16, 250), ("64 tasks", 64, 100)])
        await shutDown(client)
    } else {
        print("\ntransport: skipped (set REQUESTKIT_BENCH_URL; eval \"$(bash Scripts/start-nginx.sh)\")")
    }
}

if suites.contains("https") {
    if let url = environment["REQUESTKIT_BENCH_HTTPS_URL"], let authority = environment["REQUESTKIT_BENCH_CA"] {
        // NIOSSL's default client configuration (system trust roots, full verification) plus the test CA.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(authority)]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(tls: tls))
        await run(
            "HTTPS", client, url, rounds: rounds,
            modes: [("sequential", 1, 1_000), ("16 tasks", 16, 125), ("64 tasks", 64, 50)])
        await shutDown(client)
    } else {
        print("\nhttps: skipped (eval \"$(bash Scripts/start-nginx-tls.sh)\" first)")
    }
}

if suites.contains("h2") {
    if let url = environment["REQUESTKIT_BENCH_H2_URL"], let authority = environment["REQUESTKIT_BENCH_CA"] {
        // The same client as the https suite: over TLS AsyncHTTPClient offers h2 and uses it when the server picks it.
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(authority)]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration(tls: tls))
        await run(
            "HTTP/2", client, url, rounds: rounds,
            modes: [("sequential", 1, 1_000), ("16 tasks", 16, 250), ("64 tasks", 64, 100), ("256 tasks", 256, 40)])
        await shutDown(client)
    } else {
        print("\nh2: skipped (eval \"$(HTTP2=1 bash Scripts/start-nginx-tls.sh)\" first)")
    }
}

if suites.contains("connect") {
    if let url = environment["REQUESTKIT_AHC_CONNECT_URL"] {
        // A request on a client of its own first, so that NIO's loops run and the code is paged in: the timed
        // client then opens its first connection, as a new client in a running process does. AsyncHTTPClient
        // connects through swift-nio's Happy Eyeballs (ClientBootstrap: resolution delay 50 ms, connection delay
        // 250 ms), which neither exposes.
        if let warmURL = environment["REQUESTKIT_AHC_WARM_URL"] {
            let warm = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration())
            if let response = try? await warm.execute(HTTPClientRequest(url: warmURL), timeout: .seconds(30)) {
                _ = try? await response.body.collect(upTo: 1 << 20)
            }
            await shutDown(warm)
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration())
        let start = DispatchTime.now().uptimeNanoseconds
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            _ = try await response.body.collect(upTo: 1 << 20)
            print("connect \(String(format: "%.1f", milliseconds)) \(response.status.code)")
        } catch {
            print("connect failed: \(error)")
        }
        await shutDown(client)
    } else {
        print("\nconnect: skipped (set REQUESTKIT_AHC_CONNECT_URL; RequestKit's `Benchmarks connect` sets it)")
    }
}
