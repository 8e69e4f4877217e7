import Foundation

/// What a benchmark child process reported: its peak resident memory, how long its load took, and a detail.
struct ChildResult {
    var peakMiB: Double
    var seconds: Double
    var detail: String
}

/// Runs this executable again with `arguments` (a suite name, `--child` and the load to run) and reads the
/// `result <VmHWM KiB> <seconds> <detail>` line the child prints, so each load's peak memory is its own.
///
/// ```swift
/// let result = try runChild(["transfers", "--child", "baseline", url.absoluteString])
/// ```
func runChild(_ arguments: [String]) throws -> ChildResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("result ") }) else {
        return ChildResult(peakMiB: .nan, seconds: .nan, detail: "child failed: \(output)")
    }
    let fields = line.split(separator: " ", maxSplits: 3).map(String.init)
    return ChildResult(
        peakMiB: Double(fields[1]).map { $0 / 1024 } ?? .nan, seconds: Double(fields[2]) ?? .nan,
        detail: fields.count > 3 ? fields[3] : "")
}
