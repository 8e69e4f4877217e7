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

/// What many requests to a server that never answers cost `NativeTransport` in threads: `REQUESTKIT_BENCH_SILENT`
/// requests (1,000 by default) through `Request { … }.send()`, each with `Timeout(2)`, to a loopback listener that
/// completes handshakes but never accepts, every request on its own connection. Prints the process's thread count (`Threads:` in
/// /proc/self/status) before and at its peak, how long the timeouts took, and, when `REQUESTKIT_BENCH_URL` is
/// set, how long one unrelated request to that server took in the middle of them.
func runThreadBenchmarks() {
    let count = Int(ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_SILENT"] ?? "") ?? 1_000
    guard let listener = SilentListener(), let url = URL(string: "http://127.0.0.1:\(listener.port)/never") else {
        print("\nthreads: skipped (no loopback listener)")
        return
    }
    defer { listener.close() }
    let transport = NativeTransport { $0.maxConnectionsPerHost = count }
    let unrelated = ProcessInfo.processInfo.environment["REQUESTKIT_BENCH_URL"].flatMap(URL.init(string:))
    // Warm up: the unrelated server once, so that both runs start with their threads made.
    if let unrelated { _ = runBlocking { try? await NativeTransport.shared.send(URLRequest(url: unrelated)) } }
    let before = processThreads()
    let peak = ThreadPeak.sampling(everyMicroseconds: 10_000)
    let start = DispatchTime.now().uptimeNanoseconds
    let (timedOut, unrelatedSeconds) = runBlocking { () async -> (Int, Double?) in
        async let outcomes = withTaskGroup(of: Bool.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        _ = try await Request {
                            Url(url); Using(transport); Timeout(2)
                        }.send()
                        return false
                    } catch {
                        return (error as? RequestError)?.kind == .timedOut
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        var seconds: Double?
        if let unrelated {
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            let requestStart = DispatchTime.now().uptimeNanoseconds
            _ = try? await NativeTransport.shared.send(URLRequest(url: unrelated))
            seconds = Double(DispatchTime.now().uptimeNanoseconds - requestStart) / 1e9
        }
        return (await outcomes, seconds)
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    peak.finish()
    print("\nThreads: \(count) requests with Timeout(2) to a server that never answers")
    print("| threads before | peak threads | timed out | all ended after, s | unrelated request meanwhile, s |")
    print("|---|---|---|---|---|")
    print(
        "| \(before) | \(peak.value) | \(timedOut) of \(count) | \(formatted(elapsed, decimals: 2)) | "
            + "\(unrelatedSeconds.map { formatted($0, decimals: 4) } ?? "n/a") |")
}

/// The process's thread count, from /proc/self/status (0 where there is no /proc).
func processThreads() -> Int {
    max(processStatus("Threads"), 0)
}

/// The highest thread count seen by the sampling thread.
final class ThreadPeak: @unchecked Sendable {
    /// Starts a thread that records the process's thread count every `interval` microseconds until ``finish()``.
    static func sampling(everyMicroseconds interval: UInt32) -> ThreadPeak {
        let peak = ThreadPeak()
        let sampler = Thread {
            while !peak.isDone {
                peak.record(processThreads())
                usleep(interval)
            }
        }
        sampler.start()
        return peak
    }

    // Safe: `highest` and `done` are only touched while holding `lock`.
    private let lock = NSLock()
    private var highest = 0
    private var done = false

    var value: Int { lock.withLock { highest } }
    var isDone: Bool { lock.withLock { done } }
    func record(_ count: Int) { lock.withLock { highest = max(highest, count) } }
    func finish() { lock.withLock { done = true } }
}

/// A loopback listener with a long accept queue that never accepts: connections open, requests are sent, nothing
/// comes back.
private final class SilentListener: @unchecked Sendable {
    // Safe: used by one thread.
    private var descriptor: Int32
    let port: Int

    init?() {
        #if canImport(Darwin)
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = descriptor
        let isListening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && listen(fd, 4096) == 0
                    && getsockname(fd, socketAddress, &length) == 0
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard descriptor >= 0, isListening else {
            close()
            return nil
        }
    }

    func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
        descriptor = -1
    }
}
