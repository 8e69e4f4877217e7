import Foundation
import RequestKit

/// The standard parser benchmark documents, read from the shared data folder beside the repository.
private let benchmarkFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Benchmarks
    .deletingLastPathComponent()  // the package root
    .deletingLastPathComponent()
    .appendingPathComponent("shared/data/json-benchmark")

/// Megabytes (10⁶ bytes) per second for `bytes` processed in `measurement`'s median time per operation.
func megabytesPerSecond(_ bytes: Int, _ measurement: Measurement) -> Double {
    Double(bytes) / (measurement.nanosecondsPerOperation / 1e9) / 1e6
}

func row(_ cells: [String]) -> String {
    "| " + cells.joined(separator: " | ") + " |"
}

/// Parses, serializes and reads the benchmark documents with RequestKit's `Json` and with Foundation, and
/// prints the medians as a Markdown table with ratios against `JSONSerialization` measured in the same run.
/// The contents of `name`.json in the benchmark folder, or nil (with a note) when it is missing.
func benchmarkDocument(_ name: String) -> Data? {
    let url = benchmarkFolder.appendingPathComponent("\(name).json")
    guard let data = try? Data(contentsOf: url) else {
        print("skipped \(name).json: not found at \(url.path)")
        return nil
    }
    return data
}

func runJSONBenchmarks() {
    print("\n## JSON\n")
    let files = ["twitter", "citm_catalog", "canada"]
    var documents: [(name: String, data: Data)] = []
    for name in files {
        if let data = benchmarkDocument(name) {
            documents.append((name, data))
        }
    }
    guard !documents.isEmpty else { return }

    print(
        row(["parse (MB/s)", "RequestKit Json", "JSONSerialization", "JSONDecoder → Json", "Json ÷ JSONSerialization"]))
    print(row(["---", "---:", "---:", "---:", "---:"]))
    for (name, data) in documents {
        let iterations = 5
        let requestKit = measure("Json(parsing:)", rounds: 11, iterations: iterations) {
            blackHole(try? Json(parsing: data))
        }
        let foundation = measure("JSONSerialization", rounds: 11, iterations: iterations) {
            blackHole(try? JSONSerialization.jsonObject(with: data))
        }
        let decoder = measure("JSONDecoder", rounds: 11, iterations: 1) {
            blackHole(try? JSONDecoder().decode(Json.self, from: data))
        }
        let ours = megabytesPerSecond(data.count, requestKit)
        let theirs = megabytesPerSecond(data.count, foundation)
        print(
            row([
                name, formatted(ours), formatted(theirs), formatted(megabytesPerSecond(data.count, decoder)),
                formatted(ours / theirs, decimals: 2) + "×",
            ]))
    }

    print("")
    print(row(["serialize (MB/s of output)", "RequestKit Json", "JSONSerialization", "Json ÷ JSONSerialization"]))
    print(row(["---", "---:", "---:", "---:"]))
    for (name, data) in documents {
        guard let json = try? Json(parsing: data), let object = try? JSONSerialization.jsonObject(with: data) else {
            continue
        }
        let outputSize = json.serializedBytes().count
        let foundationSize = (try? JSONSerialization.data(withJSONObject: object))?.count ?? 0
        let requestKit = measure("serializedBytes", rounds: 11, iterations: 5) {
            blackHole(json.serializedBytes())
        }
        let foundation = measure("JSONSerialization.data", rounds: 11, iterations: 5) {
            blackHole(try? JSONSerialization.data(withJSONObject: object))
        }
        let ours = megabytesPerSecond(outputSize, requestKit)
        let theirs = megabytesPerSecond(foundationSize, foundation)
        print(row([name, formatted(ours), formatted(theirs), formatted(ours / theirs, decimals: 2) + "×"]))
    }

    guard let twitter = documents.first(where: { $0.name == "twitter" }), let json = try? Json(parsing: twitter.data)
    else { return }
    print("")
    print(row(["read (ns per lookup, parsed twitter.json)", "RequestKit Json", "JSONSerialization casts"]))
    print(row(["---", "---:", "---:"]))
    let object = try? JSONSerialization.jsonObject(with: twitter.data)
    let chained = measure("json.statuses[0].user.screen_name.string", iterations: 100_000) {
        blackHole(json.statuses[0].user.screen_name.string)
    }
    let casts = measure("casts", iterations: 100_000) {
        let statuses = (object as? [String: Any])?["statuses"] as? [Any]
        let user = (statuses?.first as? [String: Any])?["user"] as? [String: Any]
        blackHole(user?["screen_name"] as? String)
    }
    print(
        row([
            "`json.statuses[0].user.screen_name.string`", formatted(chained.nanosecondsPerOperation),
            formatted(casts.nanosecondsPerOperation),
        ]))
    let path = measure("path", iterations: 100_000) {
        blackHole(json["statuses", 0, "user", "screen_name"].string)
    }
    print(
        row(["`json[\"statuses\", 0, \"user\", \"screen_name\"].string`", formatted(path.nanosecondsPerOperation), ""]))
}

/// One round of `Json(parsing:)` on each benchmark document (a warm-up parse, then five timed ones), printed as
/// `name MB/s` lines, for `Scripts/compare-orjson.py`, which alternates these rounds with orjson's.
///
/// `Benchmarks json-parse-round twitter` parses only the documents named.
func runJSONParseRound(only names: [String]) {
    for name in ["twitter", "citm_catalog", "canada"] where names.isEmpty || names.contains(name) {
        guard let data = benchmarkDocument(name) else { continue }
        blackHole(try? Json(parsing: data))
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<5 {
            blackHole(try? Json(parsing: data))
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / 5
        print("\(name) \(formatted(Double(data.count) / seconds / 1e6))")
    }
}
