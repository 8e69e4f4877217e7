import Foundation

/// The result of timing one operation: the median over several rounds.
struct Measurement {
    /// A short label printed in the report.
    let name: String
    /// The median wall-clock time of one round, in seconds.
    let medianSeconds: Double
    /// How many times the operation ran in each round.
    let iterationsPerRound: Int

    /// The median time of one operation, in nanoseconds.
    var nanosecondsPerOperation: Double { medianSeconds / Double(iterationsPerRound) * 1e9 }
}

/// Runs `body` `iterations` times per round for `rounds` rounds (after one warm-up round) and returns the
/// median round time.
///
/// ```swift
/// let m = measure("build", iterations: 10_000) { _ = try? request.urlRequest() }
/// ```
func measure(_ name: String, rounds: Int = 15, iterations: Int, _ body: () throws -> Void) rethrows -> Measurement {
    var samples: [Double] = []
    samples.reserveCapacity(rounds)
    for round in 0...rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try body() }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if round > 0 { samples.append(elapsed) }
    }
    samples.sort()
    return Measurement(name: name, medianSeconds: samples[samples.count / 2], iterationsPerRound: iterations)
}

/// Keeps the optimizer from removing a computation whose result is otherwise unused.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Formats a number with a fixed count of decimals.
func formatted(_ value: Double, decimals: Int = 1) -> String {
    String(format: "%.\(decimals)f", value)
}

/// Times two operations in alternating rounds (after one warm-up round of each), so that a change in the
/// machine's load during the run affects both alike; returns the median round of each.
///
/// ```swift
/// let (ours, theirs) = measureAlternately(iterations: 5, { decodeWithOurs() }, { decodeWithTheirs() })
/// ```
func measureAlternately(
    rounds: Int = 15, iterations: Int, _ first: () throws -> Void, _ second: () throws -> Void
) rethrows -> (Measurement, Measurement) {
    var samples: ([Double], [Double]) = ([], [])
    for round in 0...rounds {
        var start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try first() }
        let firstElapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<iterations { try second() }
        let secondElapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if round > 0 {
            samples.0.append(firstElapsed)
            samples.1.append(secondElapsed)
        }
    }
    samples.0.sort()
    samples.1.sort()
    return (
        Measurement(name: "first", medianSeconds: samples.0[rounds / 2], iterationsPerRound: iterations),
        Measurement(name: "second", medianSeconds: samples.1[rounds / 2], iterationsPerRound: iterations)
    )
}

/// A number from /proc/self/status (or another process's, by its id): `VmRSS` (the resident set) and `VmHWM` (its peak) in KiB, `Threads` a count;
/// -1 where there is no such line (or no /proc).
///
/// ```swift
/// let peakMiB = Double(processStatus("VmHWM")) / 1024
/// ```
func processStatus(_ field: String, process: String = "self") -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(process)/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
    else { return -1 }
    return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
}
