import Foundation
import RequestKit
import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Requests per second and CPU time per request of `URLSessionTransport` and `NativeTransport` against the
/// server named by `REQUESTKIT_BENCH_URL` (nginx serving 118 bytes of JSON: see `Scripts/start-nginx.sh`), on one
/// connection and with 16 and 64 concurrent tasks (at most 64 connections per host), measured in the same run;
/// `wrk` runs as the ceiling when installed.
func runTransportBenchmarks() {
    guard let text = ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_URL"], let url = URL(string: text) else {
        print("\ntransport: skipped (set REQUESTKIT_BENCH_URL; eval \"$(bash Scripts/start-nginx.sh)\")")
        return
    }
    let rounds = Int(ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 7
    let slices = max(1, Int(ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_SLICES"] ?? "") ?? 60)
    let configuration = URLSessionTransport.defaultConfiguration()
    configuration.httpMaximumConnectionsPerHost = 64
    let http1 = NativeTransport { $0.maxConnectionsPerHost = 64 }
    // The last contender calls the transport itself, without the request pipeline: the DSL's overhead is the ratio
    // of "HTTP1" to it, measured below in alternating slices.
    let transports: [(String, any Transport, Bool)] = [
        ("URLSession", URLSessionTransport(configuration: configuration), false),
        ("HTTP1", http1, false),
        ("HTTP1 direct", http1, true),
    ]
    print("\nTransport: GET \(url.absoluteString), medians of \(rounds) rounds")
    printContenders(
        url, transports, modes: [("sequential", 1, 2_000), ("16 tasks", 16, 250), ("64 tasks", 64, 100)],
        rounds: rounds)
    printPipelineRatios(url, http1, name: "HTTP1", rounds: rounds, slices: slices)
    for (threads, connections) in [(1, 1), (2, 16), (2, 64)] {
        if let rate = wrkRequestsPerSecond(url, threads: threads, connections: connections) {
            print("| wrk -t\(threads) -c\(connections) | ceiling | \(formatted(rate, decimals: 0)) | | |")
        }
    }
}

/// Measures each contender (a name, a transport, and whether it is called directly rather than through the DSL) in
/// each mode (a name, the tasks, the requests per task), `rounds` times after a warm-up round, and prints the
/// medians against the first contender's. The last two (the DSL and the direct call) swap places each round, so
/// neither always runs first.
func printContenders(
    _ url: URL, _ contenders: [(String, any Transport, Bool)], modes: [(String, Int, Int)], rounds: Int
) {
    var results: [String: [TransportSample]] = [:]
    for round in 0...rounds {
        var order = contenders
        if !round.isMultiple(of: 2), order.count >= 2 { order.swapAt(order.count - 2, order.count - 1) }
        for (name, transport, direct) in order {
            for (mode, tasks, perTask) in modes {
                let sample = TransportSample.measure(
                    url, transport, direct: direct, tasks: tasks, requestsPerTask: perTask)
                // Round 0 warms connections and code paths up and is not counted.
                if round > 0 { results["\(name) \(mode)", default: []].append(sample) }
            }
        }
    }
    let baselineName = contenders.first?.0 ?? ""
    print("| transport | mode | requests/s | CPU µs/request | vs \(baselineName) |")
    print("|---|---|---|---|---|")
    for (mode, _, _) in modes {
        let baseline = TransportSample.median(results["\(baselineName) \(mode)"] ?? [])
        for (name, _, _) in contenders {
            let median = TransportSample.median(results["\(name) \(mode)"] ?? [])
            let ratio = baseline.requestsPerSecond > 0 ? median.requestsPerSecond / baseline.requestsPerSecond : 0
            print(
                "| \(name) | \(mode) | \(formatted(median.requestsPerSecond, decimals: 0)) | "
                    + "\(formatted(median.cpuMicrosecondsPerRequest)) | \(formatted(ratio, decimals: 2))× |")
        }
    }
}

/// Prints the pipeline's cost over `transport`: the ratio of the DSL's rate to the transport's called directly,
/// sequentially and with 16 and 64 tasks. Loopback rates drift by tens of percent from one second to the next (and
/// sequential rates are bimodal: whether the server answers inside the transport's polling window), so the two are
/// measured in fine alternation rather than in separate rounds: `slices` each way per round, the order swapped from
/// slice to slice, times summed.
func printPipelineRatios(_ url: URL, _ transport: NativeTransport, name: String, rounds: Int, slices: Int) {
    for (mode, tasks, perTask) in [("sequential", 1, 200), ("16 tasks", 16, 50), ("64 tasks", 64, 20)] {
        var ratios: [Double] = []
        for _ in 0..<rounds {
            var pipelineSeconds = 0.0
            var directSeconds = 0.0
            for slice in 0..<slices {
                for direct in slice.isMultiple(of: 2) ? [false, true] : [true, false] {
                    let sample = TransportSample.measure(
                        url, transport, direct: direct, tasks: tasks, requestsPerTask: perTask)
                    let seconds = Double(tasks * perTask) / max(sample.requestsPerSecond, 1)
                    if direct { directSeconds += seconds } else { pipelineSeconds += seconds }
                }
            }
            ratios.append(directSeconds / max(pipelineSeconds, 1e-9))
        }
        ratios.sort()
        if !ratios.isEmpty {
            print(
                "DSL over \(name) ÷ NativeTransport.send, \(mode) in alternating slices: "
                    + "\(formatted(ratios[ratios.count / 2], decimals: 3))× (median of \(ratios.count) rounds of "
                    + "\(slices) slices each way; "
                    + "range \(formatted(ratios[0], decimals: 3))–\(formatted(ratios[ratios.count - 1], decimals: 3)))")
        }
    }
}

/// One timed batch of requests.
struct TransportSample {
    var requestsPerSecond: Double
    var cpuMicrosecondsPerRequest: Double

    /// Sends `tasks × requestsPerTask` requests, `tasks` at a time, and times them.
    static func measure(
        _ url: URL, _ transport: any Transport, direct: Bool, tasks: Int, requestsPerTask: Int,
        executor: (any TaskExecutor)? = nil
    ) -> TransportSample {
        let total = tasks * requestsPerTask
        let cpuBefore = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        let failures = runBlocking {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<tasks {
                    group.addTask(executorPreference: executor) {
                        var failures = 0
                        for _ in 0..<requestsPerTask {
                            let response =
                                direct
                                ? try? await transport.send(URLRequest(url: url))
                                : try? await Request {
                                    Url(url); Using(transport)
                                }.send()
                            if response?.statusCode != 200 || response?.body.count != 118 { failures += 1 }
                        }
                        return failures
                    }
                }
                return await group.reduce(0, +)
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        if failures > 0 { print("warning: \(failures) of \(total) requests failed or were not 118 bytes") }
        return TransportSample(
            requestsPerSecond: Double(total) / seconds, cpuMicrosecondsPerRequest: cpu / Double(total) * 1e6)
    }

    static func median(_ samples: [TransportSample]) -> TransportSample {
        guard !samples.isEmpty else { return TransportSample(requestsPerSecond: 0, cpuMicrosecondsPerRequest: 0) }
        let rates = samples.map(\.requestsPerSecond).sorted()
        let cpu = samples.map(\.cpuMicrosecondsPerRequest).sorted()
        return TransportSample(requestsPerSecond: rates[rates.count / 2], cpuMicrosecondsPerRequest: cpu[cpu.count / 2])
    }
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

/// Runs `operation` to completion from synchronous code.
func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await operation()
        done.signal()
    }
    done.wait()
    guard let value = box.value else { preconditionFailure("the task signalled without a value") }
    return value
}

/// Hands a value from a task to the thread waiting for it.
private final class ResultBox<T>: @unchecked Sendable {
    // Safe: written once by the task before it signals the semaphore, read once after the wait.
    var value: T?
}

/// The requests per second `wrk` reports over 3 seconds, or nil when wrk is not installed.
private func wrkRequestsPerSecond(_ url: URL, threads: Int, connections: Int) -> Double? {
    let candidates = ["/usr/bin/wrk", "/usr/local/bin/wrk", "/opt/homebrew/bin/wrk"]
    guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["-t\(threads)", "-c\(connections)", "-d3s", url.absoluteString]
    let pipe = Pipe()
    process.standardOutput = pipe
    do { try process.run() } catch { return nil }
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }) else { return nil }
    return Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
}

/// One contender of the transport suite for a profiler: the DSL (or, with `direct`, `NativeTransport.send`) over
/// `NativeTransport` with `tasks` concurrent tasks for about `seconds`, against `REQUESTKIT_BENCH_URL`, or with
/// `https` against `REQUESTKIT_BENCH_HTTPS_URL` trusting `REQUESTKIT_BENCH_CA`, or with `h2` against
/// `REQUESTKIT_BENCH_H2_URL` (nginx with `http2`, which ALPN picks) trusting the same; prints requests/s and CPU µs
/// per request of each second, and how many requests were sent in all (for `strace -c -f`'s counts). With `nopoll` the transport never looks for a response itself
/// (``NativeTransport/Configuration/responsePollWindow`` 0), so that instruction counts do not depend on timing.
/// With `onloop` the tasks run with the transport's ``NativeTransport/taskExecutor`` preferred, on its event loop.
///
/// ```sh
/// perf record -g .build/release/Benchmarks transport-profile 16 10
/// valgrind --tool=callgrind .build/release/Benchmarks transport-profile 1 3 nopoll
/// strace -c -f .build/release/Benchmarks transport-profile 1 5 h2
/// ```
func runTransportProfile(
    tasks: Int, seconds: Int, direct: Bool, https: Bool, h2: Bool = false, poll: Bool = true, metrics: Bool = true,
    onLoop: Bool = false
) {
    let environment = ProcessInfo.processInfo.environment
    let variable = h2 ? "REQUESTKIT_BENCH_H2_URL" : https ? "REQUESTKIT_BENCH_HTTPS_URL" : "REQUESTKIT_BENCH_URL"
    guard let text = environment[variable], let url = URL(string: text) else {
        print("transport-profile: set \(variable) (see BENCHMARKS.md)")
        return
    }
    let transport = NativeTransport {
        $0.maxConnectionsPerHost = max(16, tasks)
        if !poll { $0.responsePollWindow = 0 }
        $0.recordsMetrics = metrics
        if https || h2, let authority = environment["REQUESTKIT_BENCH_CA"] {
            $0.tls = TLSConfiguration(additionalRoots: [.file(authority)])
        }
    }
    let perSecond = max(1, 4_000 / max(tasks, 1)) * max(tasks, 1)
    var samples: [TransportSample] = []
    for _ in 0..<max(seconds, 1) {
        samples.append(
            TransportSample.measure(
                url, transport, direct: direct, tasks: tasks, requestsPerTask: perSecond / max(tasks, 1),
                executor: onLoop ? transport.taskExecutor : nil))
    }
    for sample in samples {
        print(
            "\(formatted(sample.requestsPerSecond, decimals: 0)) requests/s, "
                + "\(formatted(sample.cpuMicrosecondsPerRequest)) CPU µs/request")
    }
    let median = TransportSample.median(samples)
    print(
        "median: \(formatted(median.requestsPerSecond, decimals: 0)) requests/s, "
            + "\(formatted(median.cpuMicrosecondsPerRequest)) CPU µs/request (\(tasks) tasks, "
            + "\(direct ? "NativeTransport.send" : "DSL")\(h2 ? ", h2" : https ? ", https" : ""))")
    print("requests sent: \(samples.count * perSecond)")
}
