import Foundation
import RequestKit
import RequestKitTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Memory under hostile and long-running loads, each in a fresh child process (this executable, run with
/// `limits --child …`) so that its peak resident set (`VmHWM`) measures that load alone; the loopback server
/// runs in the parent. The baseline is a child that makes one small request and exits.
///
/// - a 10 GiB gzip bomb and an endless chunked body sent to `data()`: a typed error, and the peak;
/// - 100,000 sequential requests: the resident set (`VmRSS`) after 10,000 (warm-up) and at the end;
/// - ten 1 GiB downloads in a row: the peak of each.
func runLimitsBenchmarks() {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--child"), index + 3 < arguments.count {
        runLimitsChild(mode: arguments[index + 1], transport: arguments[index + 2], url: arguments[index + 3])
        return
    }
    do {
        let server = try TestServer { $0.readTimeout = .seconds(120) }
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        print("\nLimits: peak RSS (VmHWM) of a child process; data() holds at most 64 MiB by default")
        print("| transport | run | peak RSS, MiB | extra over baseline, MiB | seconds | result |")
        print("|---|---|---|---|---|---|")
        for transport in ["URLSession", "HTTP1"] {
            let baseline = try runLimitsChild("baseline", transport, server.url("/get"))
            var runs: [(String, ChildResult)] = [("baseline (one small request)", baseline)]
            runs.append(
                (
                    "data() of a 10 GiB gzip bomb",
                    try runLimitsChild("data", transport, server.url("/hostile/gzip-bomb?bytes=\(10 << 30)"))
                ))
            runs.append(
                (
                    "data() of an endless chunked body",
                    try runLimitsChild("data", transport, server.url("/hostile/endless"))
                )
            )
            runs.append(
                ("100,000 sequential GET /get", try runLimitsChild("sequential", transport, server.url("/get"))))
            if transport == "URLSession" {
                // The same loop on a bare URLSession with the same configuration and no RequestKit: what
                // FoundationNetworking itself keeps.
                runs.append(
                    (
                        "100,000 sequential GET /get, bare URLSession",
                        try runLimitsChild("sequential-bare", transport, server.url("/get"))
                    ))
            }
            var downloads: [(String, ChildResult)] = []
            for round in 1...10 {
                let file = folder.appendingPathComponent("down.bin")
                let url = server.url("/large/\(1 << 30)")
                downloads.append(
                    (
                        "download(to:) 1 GiB, run \(round) of 10",
                        try runLimitsChild("download", transport, url, file.path)
                    ))
                try? FileManager.default.removeItem(at: file)
            }
            for (name, result) in runs + downloads {
                let extra = formatted(result.peakMiB - baseline.peakMiB)
                print(
                    "| \(transport) | \(name) | \(formatted(result.peakMiB)) | \(extra) | "
                        + "\(formatted(result.seconds)) | \(result.detail) |")
            }
        }
    } catch {
        print("Limits benchmark failed: \(error)")
    }
}

/// What a child reported.
/// Runs this executable as a child and reads its `result` line.
private func runLimitsChild(
    _ mode: String, _ transport: String, _ url: URL, _ path: String? = nil
) throws -> ChildResult {
    try runChild(["limits", "--child", mode, transport, url.absoluteString] + (path.map { [$0] } ?? []))
}

/// In the child: runs one load and prints `result <VmHWM KiB> <seconds> <detail>`.
private func runLimitsChild(mode: String, transport name: String, url text: String) {
    guard let url = URL(string: text) else { return }
    let transport: any Transport = name == "HTTP1" ? NativeTransport.shared : URLSessionTransport.shared
    let path = CommandLine.arguments.last
    let clock = ContinuousClock()
    let start = clock.now
    let outcome = LimitsOutcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            switch mode {
            case "data":
                let body = try await Request {
                    Url(url); Using(transport)
                }.data()
                outcome.set("no error: \(body.count) bytes")
            case "sequential":
                let request = Request {
                    Url(url); Using(transport)
                }
                var samples: [String] = []
                for index in 1...100_000 {
                    _ = try await request.data()
                    if [10_000, 25_000, 50_000, 75_000, 100_000].contains(index) {
                        samples.append("\(index / 1000)k: \(formatted(Double(processStatus("VmRSS")) / 1024)) MiB")
                    }
                }
                outcome.set("RSS " + samples.joined(separator: ", "))
            case "sequential-bare":
                let session = URLSession(configuration: URLSessionTransport.defaultConfiguration())
                var samples: [String] = []
                for index in 1...100_000 {
                    _ = try await bareData(session, url)
                    if [10_000, 25_000, 50_000, 75_000, 100_000].contains(index) {
                        samples.append("\(index / 1000)k: \(formatted(Double(processStatus("VmRSS")) / 1024)) MiB")
                    }
                }
                outcome.set("RSS " + samples.joined(separator: ", "))
            case "download":
                guard let path else { break }
                try await Request {
                    Url(url); Using(transport); Timeout(120)
                }.download(to: URL(fileURLWithPath: path))
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber) ?? nil
                outcome.set("file has \(size?.intValue ?? -1) bytes")
            default:
                _ = try await Request {
                    Url(url); Using(transport)
                }.data()
                outcome.set("-")
            }
        } catch {
            outcome.set((error as? RequestError).map { "\($0.kind): \($0.detail ?? "")" } ?? "\(error)")
        }
        done.signal()
    }
    done.wait()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)
    print("result \(processStatus("VmHWM")) \(formatted(seconds, decimals: 2)) \(outcome.value)")
}

/// One GET on a bare `URLSession` data task, for the baseline that leaves RequestKit out.
private func bareData(_ session: URLSession, _ url: URL) async throws -> Data {
    try await withCheckedThrowingContinuation { continuation in
        session.dataTask(with: url) { data, _, error in
            if let error {
                continuation.resume(throwing: error)
            } else {
                continuation.resume(returning: data ?? Data())
            }
        }.resume()
    }
}

/// The child's result text, set from its task.
private final class LimitsOutcome: @unchecked Sendable {
    // Safe: `text` is only touched while holding `lock`.
    private let lock = NSLock()
    private var text = "no result"

    func set(_ value: String) { lock.withLock { text = value } }
    var value: String { lock.withLock { text } }
}
