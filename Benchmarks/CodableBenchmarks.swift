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

    print("")
    print(row(["encode (MB/s of output)", "TypedJsonEncoder", "JSONEncoder", "ratio"]))
    print(row(["---", "---:", "---:", "---:"]))
    if let model = try? JSONDecoder().decode(TwitterSearch.self, from: twitter) {
        compareEncoding("TwitterSearch → twitter", model)
    }
    if let model = try? JSONDecoder().decode(Catalog.self, from: catalog) {
        compareEncoding("Catalog → citm_catalog", model)
    }
}

private func compareEncoding<Value: Encodable>(_ name: String, _ value: Value) {
    guard let ours = try? TypedJsonEncoder().encode(value), let theirs = try? JSONEncoder().encode(value) else {
        print("skipped \(name): encoding failed")
        return
    }
    let (oursTime, theirsTime) = measureAlternately(
        iterations: 5,
        { blackHole(try? TypedJsonEncoder().encode(value)) },
        { blackHole(try? JSONEncoder().encode(value)) })
    let oursSpeed = megabytesPerSecond(ours.count, oursTime)
    let theirsSpeed = megabytesPerSecond(theirs.count, theirsTime)
    print(
        row([name, formatted(oursSpeed), formatted(theirsSpeed), formatted(oursSpeed / theirsSpeed, decimals: 2) + "×"])
    )
}

private func compareDecoding<Value: Codable>(_ name: String, _ data: Data, as type: Value.Type) {
    // Both decoders must give the same value before their speeds mean anything.
    let sorted = JSONEncoder()
    sorted.outputFormatting = .sortedKeys
    guard let ours = try? TypedJsonDecoder().decode(Value.self, from: data),
        let theirs = try? JSONDecoder().decode(Value.self, from: data),
        let oursEncoded = try? sorted.encode(ours), let theirsEncoded = try? sorted.encode(theirs),
        oursEncoded == theirsEncoded
    else {
        print("skipped \(name): the decoders disagree")
        return
    }
    let (oursTime, theirsTime) = measureAlternately(
        iterations: 5,
        { blackHole(try? TypedJsonDecoder().decode(Value.self, from: data)) },
        { blackHole(try? JSONDecoder().decode(Value.self, from: data)) })
    let oursSpeed = megabytesPerSecond(data.count, oursTime)
    let theirsSpeed = megabytesPerSecond(data.count, theirsTime)
    print(
        row([name, formatted(oursSpeed), formatted(theirsSpeed), formatted(oursSpeed / theirsSpeed, decimals: 2) + "×"])
    )
}

/// Runs only RequestKit's side of one codable benchmark, for a profiler or an instruction count: for about five
/// seconds, or `rounds` times when given (`perf stat .build/release/Benchmarks codable-profile decode 50`); on both
/// documents, or only on those named in `only`. `parse` runs `Json(parsing:)` on the same documents (or on canada.json,
/// when `only` names it), `foundation` decodes them with `JSONDecoder` (to compare instruction counts).
func runCodableProfile(_ what: String, rounds: Int?, only: [String] = []) {
    guard let twitter = benchmarkDocument("twitter"), let catalog = benchmarkDocument("citm_catalog"),
        let twitterModel = try? TypedJsonDecoder().decode(TwitterSearch.self, from: twitter),
        let catalogModel = try? TypedJsonDecoder().decode(Catalog.self, from: catalog)
    else {
        print("skipped: the benchmark documents are missing")
        return
    }
    let canada = only.contains("canada") ? benchmarkDocument("canada") : nil
    let end = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
    var operations = 0
    while rounds.map({ operations < $0 }) ?? (DispatchTime.now().uptimeNanoseconds < end) {
        let doesTwitter = only.isEmpty || only.contains("twitter")
        let doesCatalog = only.isEmpty || only.contains("citm_catalog")
        if what == "foundation" {
            if doesTwitter { blackHole(try? JSONDecoder().decode(TwitterSearch.self, from: twitter)) }
            if doesCatalog { blackHole(try? JSONDecoder().decode(Catalog.self, from: catalog)) }
        } else if what == "parse" {
            if doesTwitter { blackHole(try? Json(parsing: twitter)) }
            if doesCatalog { blackHole(try? Json(parsing: catalog)) }
            if let canada { blackHole(try? Json(parsing: canada)) }
        } else if what == "encode" {
            if doesTwitter { blackHole(try? TypedJsonEncoder().encode(twitterModel)) }
            if doesCatalog { blackHole(try? TypedJsonEncoder().encode(catalogModel)) }
        } else {
            if doesTwitter { blackHole(try? TypedJsonDecoder().decode(TwitterSearch.self, from: twitter)) }
            if doesCatalog { blackHole(try? TypedJsonDecoder().decode(Catalog.self, from: catalog)) }
        }
        operations += 1
    }
    print(
        "codable-profile \(what): \(operations) rounds of \(only.isEmpty ? "twitter and citm_catalog" : only.joined(separator: " and "))"
    )
}
