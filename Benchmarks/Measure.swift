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
