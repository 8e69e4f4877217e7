import Foundation
import RequestKit
import RequestKitNativeTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// RequestKit's phases against curl's (`curl -w`), each on a new connection to the same nginx: how long after the
/// request's start each phase had ended. Over http (`REQUESTKIT_BENCH_URL`) and https (`REQUESTKIT_BENCH_HTTPS_URL`
/// with `REQUESTKIT_BENCH_CA`), from `Scripts/start-nginx.sh` and `Scripts/start-nginx-tls.sh`.
///
/// curl's times count from the start of its transfer; RequestKit's from the request's hand-over to the transport
/// (``RequestMetrics/Attempt/start``), so both include the pool's bookkeeping or curl's set-up before the connect.
func runMetricsBenchmarks() {
    let environment = ProcessInfo.processInfo.environment
    let rounds = Int(environment["REQUESTKIT_BENCH_ROUNDS"] ?? "") ?? 51
    var targets: [(name: String, url: URL, authority: String?)] = []
    if let text = environment["REQUESTKIT_BENCH_URL"], let url = URL(string: text) {
        targets.append(("http", url, nil))
    }
    if let text = environment["REQUESTKIT_BENCH_HTTPS_URL"], let url = URL(string: text),
        let authority = environment["REQUESTKIT_BENCH_CA"]
    {
        targets.append(("https", url, authority))
    }
    guard !targets.isEmpty else {
        print("\nmetrics: skipped (eval \"$(bash Scripts/start-nginx.sh)\" and start-nginx-tls.sh first)")
        return
    }
    if let plain = targets.first(where: { $0.name == "http" }) {
        runMetricsCost(plain.url, rounds: Int(environment["REQUESTKIT_BENCH_COST_ROUNDS"] ?? "") ?? 21)
    }
    for target in targets {
        var ours: [String: [Double]] = [:]
        var theirs: [String: [Double]] = [:]
        for _ in 0..<rounds {
            for (phase, milliseconds) in requestKitPhases(target.url, authority: target.authority) {
                ours[phase, default: []].append(milliseconds)
            }
            for (phase, milliseconds) in curlPhases(target.url, authority: target.authority) {
                theirs[phase, default: []].append(milliseconds)
            }
        }
        func median(_ values: [Double]?) -> Double? {
            guard let values, !values.isEmpty else { return nil }
            return values.sorted()[values.count / 2]
        }
        print("\nPhases over \(target.name), a new connection each time, ms from the start, medians of \(rounds):")
        print("| phase ended | RequestKit (metrics) | curl -w | difference |")
        print("|---|---|---|---|")
        for phase in ["connect", "tls", "first byte", "total"] {
            guard let mine = median(ours[phase]), let curl = median(theirs[phase]) else { continue }
            print(
                "| \(phase) | \(formatted(mine, decimals: 3)) | \(formatted(curl, decimals: 3)) | "
                    + "\(formatted(mine - curl, decimals: 3)) |")
        }
    }
}

/// What recording metrics costs the DSL on a kept-alive connection: `Request { Url(url); Using(transport) }.send()`
/// through a transport that records them (the default) and one that does not
/// (``NativeTransport/Configuration/recordsMetrics``), in alternating rounds of the same run, sequentially and with
/// 16 tasks. Medians of `rounds`; the cost is the median over the rounds of the share of requests per second the
/// round with metrics lost against the round without beside it (pairs cancel the machine's slower drifts), with the
/// quartiles of those shares, which show how far this machine's noise reaches.
private func runMetricsCost(_ url: URL, rounds: Int) {
    let recording = NativeTransport { $0.maxConnectionsPerHost = 16 }
    let bare = NativeTransport {
        $0.maxConnectionsPerHost = 16
        $0.recordsMetrics = false
    }
    print("\nWhat metrics cost the DSL, kept-alive to the same nginx, medians of \(rounds) alternating rounds:")
    print("| tasks | with metrics req/s | without req/s | cost (quartiles) | CPU µs/req with | CPU µs/req without |")
    print("|---|---|---|---|---|---|")
    for tasks in [1, 16] {
        let perTask = tasks == 1 ? 5_000 : 500
        // Warm both pools and the server before timing.
        for transport in [recording, bare] {
            _ = TransportSample.measure(url, transport, direct: false, tasks: tasks, requestsPerTask: perTask / 4)
        }
        var with: [TransportSample] = []
        var without: [TransportSample] = []
        var costs: [Double] = []
        for round in 0..<max(rounds, 1) {
            // Alternating which goes first, so neither always runs on a warmer machine.
            let order = round.isMultiple(of: 2) ? [true, false] : [false, true]
            for records in order {
                let sample = TransportSample.measure(
                    url, records ? recording : bare, direct: false, tasks: tasks, requestsPerTask: perTask)
                if records { with.append(sample) } else { without.append(sample) }
            }
            costs.append((1 - with[round].requestsPerSecond / without[round].requestsPerSecond) * 100)
        }
        let on = TransportSample.median(with)
        let off = TransportSample.median(without)
        costs.sort()
        let cost =
            "\(formatted(costs[costs.count / 2])) % (\(formatted(costs[costs.count / 4])) to "
            + "\(formatted(costs[costs.count * 3 / 4])))"
        print(
            "| \(tasks) | \(formatted(on.requestsPerSecond, decimals: 0)) | \(formatted(off.requestsPerSecond, decimals: 0)) | "
                + "\(cost) | \(formatted(on.cpuMicrosecondsPerRequest)) | "
                + "\(formatted(off.cpuMicrosecondsPerRequest)) |")
    }
}

/// One request on a new connection through `Request { … }.send()`: when each phase ended, in ms from the start.
private func requestKitPhases(_ url: URL, authority: String?) -> [(String, Double)] {
    let transport = NativeTransport {
        if let authority { $0.tls = TLSConfiguration(additionalRoots: [.file(authority)]) }
    }
    let response = runBlocking { () async -> Response? in
        try? await Request {
            Url(url)
            Header.Any(key: "Connection", value: "close")
            Using(transport)
        }.send()
    }
    guard let attempt = response?.metrics.attempts.last else { return [] }
    func since(_ instant: ContinuousClock.Instant?) -> Double? {
        guard let instant else { return nil }
        let (seconds, attoseconds) = attempt.start.duration(to: instant).components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }
    let phases: [(String, Double?)] = [
        ("connect", since(attempt.connect?.end)), ("tls", since(attempt.tlsHandshake?.end)),
        ("first byte", since(attempt.firstResponseByte)), ("total", since(attempt.end)),
    ]
    return phases.compactMap { name, value in value.map { (name, $0) } }
}

/// The same request by `curl`: its `time_connect`, `time_appconnect`, `time_starttransfer` and `time_total`, in ms.
private func curlPhases(_ url: URL, authority: String?) -> [(String, Double)] {
    let process = Process()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
        ["curl", "-s", "-o", "/dev/null", "-H", "Connection: close"]
        + (authority.map { ["--cacert", $0] } ?? [])
        + ["-w", "%{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total}", url.absoluteString]
    process.standardOutput = output
    guard (try? process.run()) != nil else { return [] }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let values = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap { Double($0) }
    guard values.count == 4 else { return [] }
    var phases = [("connect", values[0] * 1e3)]
    if authority != nil { phases.append(("tls", values[1] * 1e3)) }
    phases += [("first byte", values[2] * 1e3), ("total", values[3] * 1e3)]
    return phases
}
