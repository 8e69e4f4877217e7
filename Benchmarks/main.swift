import RequestKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Each suite prints its own table: medians, and ratios against a baseline measured in the same run.
// Pass suite names to run only those, e.g. `Benchmarks building`.
let suites: [(name: String, summary: String, run: () -> Void)] = [
    (
        "building", "a ten-component request block against the same URLRequest built by hand",
        runRequestBuildingBenchmarks
    ),
    ("json", "Json parsing and writing against JSONSerialization and JSONDecoder", runJSONBenchmarks),
    ("codable", "TypedJsonDecoder/Encoder against JSONDecoder/JSONEncoder", runCodableBenchmarks),
    ("transfers", "peak memory of 1 GiB uploads, downloads and streams", runTransfersBenchmarks),
    ("pipeline", "the request pipeline's own cost over a transport answering from memory", runPipelineBenchmarks),
    (
        "transport", "NativeTransport against URLSession (needs REQUESTKIT_BENCH_URL, see BENCHMARKS.md)",
        runTransportBenchmarks
    ),
    (
        "https", "native https against URLSession, and new-connection cost against curl (see BENCHMARKS.md)",
        runHTTPSBenchmarks
    ),
    (
        "h2", "HTTP/2: native through the DSL and directly, 1 to 256 tasks, against h2load (see BENCHMARKS.md)",
        runHTTP2Benchmarks
    ),
    ("limits", "peak memory under hostile bodies, 100,000 requests and 1 GiB downloads", runLimitsBenchmarks),
    ("threads", "threads and timeouts of 1,000 requests to a server that never answers", runThreadBenchmarks),
    ("connections", "threads and memory with 10,000 event streams held open", runConnectionsBenchmarks),
    (
        "websocket", "WebSocket echo rates, 10,000 idle sockets and a 1 GiB stream (needs REQUESTKIT_BENCH_WS_URL)",
        runWebSocketBenchmarks
    ),
    (
        "cache", "ResponseCache hits from memory and disk against loopback round trips; memory of 100,000 entries",
        runCacheBenchmarks
    ),
    ("metrics", "RequestKit's request phases against curl -w's, on new connections to nginx", runMetricsBenchmarks),
    (
        "proxy", "through tinyproxy (CONNECT): native against URLSession, and a new tunnel against curl -x",
        runProxyBenchmarks
    ),
    (
        "connect", "a Unix socket against loopback TCP to one nginx; DNS queries per request (see BENCHMARKS.md)",
        runConnectBenchmarks
    ),
]
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("usage: Benchmarks [suite ...]   (no suite: every one)")
    print("       Benchmarks json-parse-round [file ...]")
    print("       Benchmarks codable-profile decode|encode|parse|foundation [rounds] [twitter|citm_catalog|canada]")
    print("       Benchmarks transport-profile [tasks] [seconds] [direct] [https|h2] [nopoll] [nometrics] [onloop]")
    print("       Benchmarks cache-profile [hits] [build]")
    print("       Benchmarks websocket-echo <ws url> <sockets> <seconds> text|binary\n\nsuites:")
    for suite in suites { print("  \(suite.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(suite.summary)") }
    exit(0)
}
// Tools that take arguments of their own: one round of the orjson comparison (`Scripts/compare-orjson.py`), and
// one side of the codable suite for a profiler (`codable-profile decode|encode|parse|foundation [rounds] [document]`),
// one contender of the transport suite for a profiler (`transport-profile [tasks] [seconds] [direct] [https|h2] [nopoll]`),
// and the cache suite's memory hit, or the building it is compared with, for a profiler (`cache-profile [hits] [build]`).
switch arguments.first {
case "json-parse-round":
    runJSONParseRound(only: Array(arguments.dropFirst()))
    exit(0)
case "codable-profile":
    let options = arguments.dropFirst()
    runCodableProfile(
        ["encode", "parse", "foundation"].first { options.contains($0) } ?? "decode",
        rounds: options.compactMap(Int.init).first,
        only: options.filter { $0 == "twitter" || $0 == "citm_catalog" || $0 == "canada" })
    exit(0)
case "cache-profile":
    runCacheProfile(
        hits: arguments.dropFirst().compactMap(Int.init).first ?? 10_000, build: arguments.contains("build"))
    exit(0)
case "websocket-echo":
    runWebSocketEcho(Array(arguments.dropFirst()))
    exit(0)
case "transport-profile":
    let options = arguments.dropFirst()
    let numbers = options.compactMap(Int.init)
    runTransportProfile(
        tasks: numbers.first ?? 1, seconds: numbers.dropFirst().first ?? 5, direct: options.contains("direct"),
        https: options.contains("https"), h2: options.contains("h2"), poll: !options.contains("nopoll"),
        metrics: !options.contains("nometrics"), onLoop: options.contains("onloop"))
    exit(0)
default:
    break
}
// Child processes of the memory suites are started with `<suite> --child …`: only the first word names a suite.
let requested = arguments.first == nil ? [] : (arguments.contains("--child") ? [arguments[0]] : arguments)
let unknown = requested.filter { name in !suites.contains { $0.name == name } }
if !unknown.isEmpty {
    print("unknown suite: \(unknown.joined(separator: ", ")); known: \(suites.map(\.name).joined(separator: ", "))")
    exit(2)
}
if !arguments.contains("--child") { print("RequestKit \(RequestKitInfo.version) benchmarks (medians)") }
for suite in suites where requested.isEmpty || requested.contains(suite.name) { suite.run() }
