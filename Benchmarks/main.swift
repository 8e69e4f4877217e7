import RequestKit

// Each suite prints its own table: medians, and ratios against a baseline measured in the same run.
// Pass suite names to run only those, e.g. `Benchmarks building`.
let selected = Set(CommandLine.arguments.dropFirst())
func wants(_ name: String) -> Bool { selected.isEmpty || selected.contains(name) }

print("RequestKit \(RequestKitInfo.version) benchmarks (medians)")
if wants("building") { runRequestBuildingBenchmarks() }
if wants("json") { runJSONBenchmarks() }
if wants("codable") { runCodableBenchmarks() }
if selected.contains("json-parse-round") { runJSONParseRound() }
if selected.contains("codable-profile") {
    runCodableProfile(CommandLine.arguments.last == "encode" ? "encode" : "decode")
}
if wants("transfers") { runTransfersBenchmarks() }
if wants("pipeline") { runPipelineBenchmarks() }
if wants("transport") { runTransportBenchmarks() }
if wants("limits") { runLimitsBenchmarks() }
