import RequestKit

// Each suite prints its own table: medians, and ratios against a baseline measured in the same run.
print("RequestKit \(RequestKit.version) benchmarks (medians)")
runJSONBenchmarks()
