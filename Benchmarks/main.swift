import RequestKit

// Each suite prints its own table: medians, and ratios against a baseline measured in the same run.
// Pass suite names to run only those, e.g. `Benchmarks building`.
let selected = Set(CommandLine.arguments.dropFirst())
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

print("RequestKit \(RequestKitInfo.version) benchmarks (medians)")
if wants("building") { runRequestBuildingBenchmarks() }
if wants("json") { runJSONBenchmarks() }
if wants("codable") { runCodableBenchmarks() }
if selected.contains("json-parse-round") { runJSONParseRound(only: Array(CommandLine.arguments.dropFirst(2))) }
if selected.contains("codable-profile") {
    let arguments = CommandLine.arguments.dropFirst(2)
    runCodableProfile(arguments.contains("encode") ? "encode" : "decode", rounds: arguments.compactMap(Int.init).first)
}
if wants("transfers") { runTransfersBenchmarks() }
if wants("pipeline") { runPipelineBenchmarks() }
if wants("transport") { runTransportBenchmarks() }
if wants("limits") { runLimitsBenchmarks() }
