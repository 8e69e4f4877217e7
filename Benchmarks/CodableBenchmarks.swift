import Foundation
import RequestKit

/// Typed decoding and encoding of the benchmark documents with RequestKit's `TypedJsonDecoder` and
/// `TypedJsonEncoder` against Foundation's `JSONDecoder` and `JSONEncoder`, measured in the same run; prints
/// medians in MB/s of JSON and the ratios.
func runCodableBenchmarks() {
    print("\n## Codable\n")
    let twitter = benchmarkDocument("twitter")
    let catalog = benchmarkDocument("citm_catalog")
    guard let twitter, let catalog else {
        print("skipped: the benchmark documents are missing")
        return
    }
    print(row(["decode (MB/s of input)", "TypedJsonDecoder", "JSONDecoder", "ratio"]))
    print(row(["---", "---:", "---:", "---:"]))
    compareDecoding("twitter → TwitterSearch", twitter, as: TwitterSearch.self)
    compareDecoding("citm_catalog → Catalog", catalog, as: Catalog.self)
}

private func compareDecoding<Value: Decodable>(_ name: String, _ data: Data, as type: Value.Type) {
    let (ours, theirs) = measureAlternately(
        iterations: 5,
        { blackHole(try? TypedJsonDecoder().decode(Value.self, from: data)) },
        { blackHole(try? JSONDecoder().decode(Value.self, from: data)) })
    let oursSpeed = megabytesPerSecond(data.count, ours)
    let theirsSpeed = megabytesPerSecond(data.count, theirs)
    print(row([name, formatted(oursSpeed), formatted(theirsSpeed), formatted(oursSpeed / theirsSpeed, decimals: 2) + "×"]))
}
