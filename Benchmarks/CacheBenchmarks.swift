import Foundation
import RequestKit
import RequestKitTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The cache: a fresh hit from the memory store against a kept-alive loopback round trip (nginx when
/// `REQUESTKIT_BENCH_URL` is set by `Scripts/start-nginx.sh`, else the in-process TestServer) and against building
/// the request alone; a 100 KiB hit from the disk store against 100 KiB over the same loopback; and the resident
/// memory after 100,000 distinct responses through a 64 MiB memory store.
func runCacheBenchmarks() {
    guard let server = try? TestServer() else { return }
    defer { server.stop() }
    let small = Data(repeating: 0x61, count: 118)
    let large = Data(repeating: 0x62, count: 100 * 1024)
    server.route("/small") { _ in TestResponse(headers: [("Cache-Control", "max-age=86400")], body: .data(small)) }
    server.route("/large") { _ in TestResponse(headers: [("Cache-Control", "max-age=86400")], body: .data(large)) }
    let smallURL = server.url("/small")
    let largeURL = server.url("/large")
    let environment = ProcessInfo.processInfo.environment
    let nginxURL = environment["REQUESTKIT_BENCH_URL"].flatMap(URL.init(string:))
    let roundTripURL = nginxURL ?? smallURL
    // Scripts/start-nginx.sh serves a 100 KiB file beside the 118-byte one.
    let largeRoundTripURL = nginxURL?.deletingLastPathComponent().appendingPathComponent("large.bin") ?? largeURL
    let roundTripServer = nginxURL == nil ? "TestServer" : "nginx"
    let memory = ResponseCache(.memory(maxBytes: 64 << 20))
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rk-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let disk = ResponseCache(.disk(at: directory, maxBytes: 256 << 20))
    let rounds = 9
    let results = runBlocking { () async -> [String: Double] in
        _ = try? await Request {
            Url(smallURL); Cache(memory)
        }.send()
        _ = try? await Request {
            Url(largeURL); Cache(disk)
        }.send()
        func timed(_ iterations: Int, _ body: () async -> Void) async -> Double {
            var samples: [Double] = []
            for round in 0...rounds {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<iterations { await body() }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / Double(iterations)
                if round > 0 { samples.append(elapsed) }
            }
            return samples.sorted()[samples.count / 2]
        }
        var results: [String: Double] = [:]
        results["build"] = await timed(20_000) {
            blackHole(
                try? Request {
                    Url(smallURL); Cache(memory)
                }.urlRequest())
        }
        results["memoryHit"] = await timed(20_000) {
            blackHole(
                try? await Request {
                    Url(smallURL); Cache(memory)
                }.send())
        }
        results["roundTrip"] = await timed(2_000) { blackHole(try? await Request { Url(roundTripURL) }.send()) }
        results["diskHit"] = await timed(2_000) {
            blackHole(
                try? await Request {
                    Url(largeURL); Cache(disk)
                }.send())
        }
        results["largeRoundTrip"] = await timed(1_000) {
            blackHole(try? await Request { Url(largeRoundTripURL) }.send())
        }
        return results
    }
    let value = { (name: String) in results[name] ?? .nan }
    print("\nCache: medians of \(rounds) rounds, ns per request (round trips kept alive on 127.0.0.1)")
    print("| path | ns per request | ratio |")
    print("|---|---|---|")
    print("| building the request (`urlRequest()`) | \(formatted(value("build"), decimals: 0)) | 1.00 |")
    print(
        "| fresh hit, memory store, 118 B | \(formatted(value("memoryHit"), decimals: 0)) | "
            + "\(formatted(value("memoryHit") / value("build"), decimals: 2)) × building |")
    print(
        "| round trip to \(roundTripServer), 118 B | "
            + "\(formatted(value("roundTrip"), decimals: 0)) | "
            + "\(formatted(value("roundTrip") / value("memoryHit"), decimals: 1)) × the memory hit |")
    print("| fresh hit, disk store, 100 KiB | \(formatted(value("diskHit"), decimals: 0)) | |")
    print(
        "| round trip to \(roundTripServer), 100 KiB | \(formatted(value("largeRoundTrip"), decimals: 0)) | "
            + "\(formatted(value("largeRoundTrip") / value("diskHit"), decimals: 1)) × the disk hit |")
    runCacheMemoryBenchmark()
}

/// `hits` fresh hits from a memory store, as the cache suite times them, or (`build`) as many builds of the same
/// request: for a profiler, whose counts of one run minus another's give the cost of each.
///
/// ```sh
/// valgrind --tool=callgrind .build/release/Benchmarks cache-profile 20000
/// ```
func runCacheProfile(hits: Int, build: Bool) {
    let cache = ResponseCache(.memory(maxBytes: 64 << 20))
    let transport = FreshTransport()
    guard let url = URL(string: "http://127.0.0.1:9/item") else { return }
    runBlocking { () async -> Void in
        for _ in 0..<max(hits, 1) {
            if build {
                blackHole(
                    try? Request {
                        Url(url); Using(transport); Cache(cache)
                    }.urlRequest())
            } else {
                blackHole(
                    try? await Request {
                        Url(url); Using(transport); Cache(cache)
                    }.send())
            }
        }
    }
}

/// 100,000 distinct 1 KiB responses through a 64 MiB memory store, answered by a transport from memory: the
/// resident set before and at its peak.
private func runCacheMemoryBenchmark() {
    let before = processStatus("VmRSS")
    let cache = ResponseCache(.memory(maxBytes: 64 << 20))
    let transport = FreshTransport()
    let count = 100_000
    runBlocking { () async -> Void in
        for index in 0..<count {
            guard let url = URL(string: "http://127.0.0.1:9/item/\(index)") else { continue }
            blackHole(
                try? await Request {
                    Url(url); Using(transport); Cache(cache)
                }.send())
        }
    }
    let after = processStatus("VmRSS")
    let peak = processStatus("VmHWM")
    print("\nCache memory: \(count) distinct 1 KiB responses through a 64 MiB memory store")
    print("| resident before | resident after | peak resident | growth at peak | bytes the store counts |")
    print("|---|---|---|---|---|")
    print(
        "| \(formatted(Double(before) / 1024)) MiB | \(formatted(Double(after) / 1024)) MiB | "
            + "\(formatted(Double(peak) / 1024)) MiB | \(formatted(Double(peak - before) / 1024)) MiB | "
            + "\(formatted(Double(cache.byteCount) / 1_048_576)) MiB |")
}

/// A transport that answers every request at once with a fresh 1 KiB response.
private struct FreshTransport: Transport {
    func stream(_ request: TransferRequest) async throws -> StreamingResponse {
        let response = Response(
            status: .ok, headers: ["Cache-Control": "max-age=86400", "Content-Type": "application/octet-stream"],
            body: Data(repeating: 0x63, count: 1024), url: request.url)
        return StreamingResponse(head: response, body: ResponseBodyStream(response.body))
    }
}
