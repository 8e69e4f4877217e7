import Foundation
import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How many open connections `NativeTransport` holds, and at what cost: `REQUESTKIT_BENCH_CONNECTIONS` (10,000 by
/// default) event streams opened at once through `Request { … }.stream()` against `Scripts/hold-connections.py` (a
/// Python asyncio server in a child process that answers each with one event and then holds it), each read up to
/// its first event and kept open until all are. Prints the process's threads and resident memory with every
/// connection open, and how long opening and closing them took. Raises the descriptor limit to what it needs.
///
/// With `REQUESTKIT_BENCH_HTTP2=1`, the streams go over HTTP/2 instead (h2c with prior knowledge) to
/// `Scripts/hold-streams-h2.py`, which allows 128 streams per connection: 10,000 streams take 79 connections.
func runConnectionsBenchmarks() {
    if CommandLine.arguments.contains("--child") { return runTestServerChild() }
    let count = Int(ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_CONNECTIONS"] ?? "") ?? 10_000
    let overHTTP2 = ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_HTTP2"] == "1"
    raiseDescriptorLimit(to: count * 2 + 1_024)
    defer { if !overHTTP2 { runTestServerConnectionsBenchmark(count: count) } }
    // A server started elsewhere (for a profiler that should not follow the child), or one of our own.
    let script = overHTTP2 ? "hold-streams-h2.py" : "hold-connections.py"
    let givenPort = ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_HOLD_PORT"].flatMap { Int($0) }
    let server = givenPort == nil ? HoldServer(script: script) : nil
    defer { server?.stop() }
    guard let port = givenPort ?? server?.port else {
        print("\nconnections: skipped (python3 Scripts/\(script) did not start)")
        return
    }
    guard let url = URL(string: "http://127.0.0.1:\(port)/events") else { return }
    let transport = NativeTransport {
        $0.maxConnectionsPerHost = count
        if overHTTP2 { $0.http2 = .priorKnowledge }
    }
    let before = processThreads()
    let residentBeforeMiB = Double(processStatus("VmRSS")) / 1024
    let direct = ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_DIRECT"] == "1"
    let peak = ThreadPeak.sampling(everyMicroseconds: 20_000)
    let gate = HoldGate(expected: count)
    let start = DispatchTime.now().uptimeNanoseconds
    var report = runBlocking { () async -> HoldReport in
        async let failures = withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        let streaming =
                            direct
                            ? try await transport.stream(TransferRequest(URLRequest(url: url, timeoutInterval: 120)))
                            : try await Request {
                                Url(url); Using(transport); Timeout(120)
                            }.stream()
                        for try await chunk in streaming.body where chunk.count > 0 {
                            await gate.arrived()
                            break
                        }
                        return true
                    } catch {
                        await gate.failed(error)
                        return false
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        let opened = await gate.allArrived()
        let openSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let threads = processThreads()
        let residentMiB = Double(processStatus("VmRSS")) / 1024
        #if canImport(Glibc)
        // What is live, without what the allocator keeps of freed memory.
        _ = trimMallocHeap(0)
        #endif
        let trimmedMiB = Double(processStatus("VmRSS")) / 1024
        print("after malloc_trim: \(formatted(trimmedMiB)) MiB")
        #if canImport(Glibc)
        if ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_MALLOC_STATS"] == "1" { printMallocStatistics() }
        #endif
        await gate.release()
        let closeStart = DispatchTime.now().uptimeNanoseconds
        let failed = await failures
        let closeSeconds = Double(DispatchTime.now().uptimeNanoseconds - closeStart) / 1e9
        return HoldReport(
            opened: opened, failed: failed, firstError: await gate.firstError, openSeconds: openSeconds,
            threadsWhenOpen: threads, residentMiB: residentMiB, closeSeconds: closeSeconds, residentAfterMiB: 0)
    }
    // What stays resident once every stream has ended: the pool gives a burst's memory back a second after it. Waited
    // for on this thread, which is blocked anyway: a `Task.sleep` would start a dispatch worker of its own, a thread
    // the transport does not use.
    usleep(2_000_000)
    report.residentAfterMiB = Double(processStatus("VmRSS")) / 1024
    peak.finish()
    print(
        "\nConnections: \(count) event streams held open at once over NativeTransport"
            + (overHTTP2 ? " (HTTP/2, h2c, 128 streams per connection)" : ""))
    print(
        "| open at once | failed | opened in, s | threads before | threads, all open | peak threads | RSS before | "
            + "RSS, all open | peak RSS | closed in, s | RSS 2 s after |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    let peakMiB = Double(processStatus("VmHWM")) / 1024
    let opened = "| \(report.opened) of \(count) | \(report.failed) | \(formatted(report.openSeconds, decimals: 2)) | "
    let threads = "\(before) | \(report.threadsWhenOpen) | \(peak.value) | "
    let memory =
        "\(formatted(residentBeforeMiB)) MiB | \(formatted(report.residentMiB)) MiB | \(formatted(peakMiB)) MiB | "
    print(
        opened + threads + memory + "\(formatted(report.closeSeconds, decimals: 2)) | "
            + "\(formatted(report.residentAfterMiB)) MiB |")
    if let firstError = report.firstError { print("first failure: \(firstError)") }
}

private struct HoldReport: Sendable {
    var opened: Int
    var failed: Int
    var firstError: String?
    var openSeconds: Double
    var threadsWhenOpen: Int
    var residentMiB: Double
    var closeSeconds: Double
    var residentAfterMiB: Double
}

/// Counts the streams that reached their first event and holds them until every one has (or failed).
private actor HoldGate {
    let expected: Int
    private var arrivedCount = 0
    private var failedCount = 0
    private(set) var firstError: String?
    private var holders: [CheckedContinuation<Void, Never>] = []
    private var watcher: CheckedContinuation<Int, Never>?
    private var isReleased = false

    init(expected: Int) { self.expected = expected }

    /// A stream read its first event: it waits here until ``release()``.
    func arrived() async {
        arrivedCount += 1
        settle()
        guard !isReleased else { return }
        await withCheckedContinuation { holders.append($0) }
    }

    func failed(_ error: any Error) {
        failedCount += 1
        if firstError == nil { firstError = "\(error)" }
        settle()
    }

    /// Waits until every stream arrived or failed; returns how many arrived.
    func allArrived() async -> Int {
        if arrivedCount + failedCount >= expected { return arrivedCount }
        return await withCheckedContinuation { watcher = $0 }
    }

    func release() {
        isReleased = true
        for holder in holders { holder.resume() }
        holders = []
    }

    private func settle() {
        guard arrivedCount + failedCount >= expected, let watcher else { return }
        self.watcher = nil
        watcher.resume(returning: arrivedCount)
    }
}

/// `Scripts/hold-connections.py` in a child process, stopped by closing its standard input.
private final class HoldServer: @unchecked Sendable {
    // Safe: used by one thread.
    private let process = Process()
    private let input = Pipe()
    let port: Int

    init?(script name: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Scripts/\(name)")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // Debian's python3-h2 is installed for the system's Python, which another python3 on the PATH may hide.
        let python = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3"
        process.arguments = [python, script.path]
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do { try process.run() } catch { return nil }
        var line = Data()
        while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            return nil
        }
        self.port = port
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Raises the soft limit on open descriptors to `wanted`, or to the hard limit when that is lower.
func raiseDescriptorLimit(to wanted: Int) {
    var limit = rlimit()
    #if canImport(Darwin)
    let resource = RLIMIT_NOFILE
    #else
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #endif
    guard getrlimit(resource, &limit) == 0 else { return }
    let target = min(rlim_t(wanted), limit.rlim_max)
    if limit.rlim_cur < target {
        limit.rlim_cur = target
        _ = setrlimit(resource, &limit)
    }
}

#if canImport(Glibc)
/// glibc's `malloc_trim`, which the Glibc module does not export: returns freed heap memory to the system.
@_silgen_name("malloc_trim")
private func trimMallocHeap(_ pad: Int) -> Int32
#endif

#if canImport(Glibc)
/// glibc's `malloc_stats`: prints each arena's size and bytes in use to standard error.
@_silgen_name("malloc_stats")
private func printMallocStatistics()
#endif
