import Foundation
import RequestKit
import RequestKitTesting

/// Peak memory of moving 1 GiB: a multipart upload of a 1 GiB file, a download of a 1 GiB body to a file and a
/// 1 GiB `stream()` read chunk by chunk,
/// each in a fresh child process (this executable, run with `transfers --child …`) so its peak resident set
/// (`VmHWM`) measures the transfer alone. The baseline is a child that starts, makes one small request and exits.
/// The loopback server runs in the parent process.
func runTransfersBenchmarks() {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--child"), index + 2 < arguments.count {
        runTransferChild(
            mode: arguments[index + 1], url: arguments[index + 2], path: arguments.dropFirst(index + 3).first)
        return
    }
    let gibibyte = 1 << 30
    do {
        let server = try TestServer {
            $0.maxBodyBytes = gibibyte + (1 << 20)
            $0.readTimeout = .seconds(120)
        }
        defer { server.stop() }
        server.route("/count") { request in .json(["bytes": request.body.count]) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("requestkit-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appendingPathComponent("upload.bin")
        try writeFile(source, bytes: gibibyte)

        print("\nTransfers: peak RSS (VmHWM) of a child process moving 1 GiB")
        let baseline = try runChild(mode: "baseline", url: server.url("/get"), path: nil)
        let upload = try runChild(mode: "upload", url: server.url("/count"), path: source.path)
        let download = try runChild(
            mode: "download", url: server.url("/large/\(gibibyte)"),
            path: folder.appendingPathComponent("down.bin").path)
        let stream = try runChild(mode: "stream", url: server.url("/large/\(gibibyte)"), path: nil)
        print("| run | peak RSS, MiB | extra over baseline, MiB | seconds | result |")
        print("|---|---|---|---|---|")
        for (name, result) in [
            ("baseline (one small request)", baseline), ("upload 1 GiB multipart file", upload),
            ("download 1 GiB to a file", download), ("stream() 1 GiB, counting chunks", stream),
        ] {
            let extra = formatted(result.peakMiB - baseline.peakMiB)
            print(
                "| \(name) | \(formatted(result.peakMiB)) | \(extra) | \(formatted(result.seconds)) | \(result.detail) |"
            )
        }
    } catch {
        print("Transfers benchmark failed: \(error)")
    }
}

/// What a child reported.
/// Runs this executable as a child in `mode` and reads its `result` line.
private func runChild(mode: String, url: URL, path: String?) throws -> ChildResult {
    try runChild(["transfers", "--child", mode, url.absoluteString] + (path.map { [$0] } ?? []))
}

/// In the child: performs one transfer and prints `result <VmHWM KiB> <seconds> <detail>`.
private func runTransferChild(mode: String, url text: String, path: String?) {
    guard let url = URL(string: text) else { return }
    let clock = ContinuousClock()
    let start = clock.now
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            switch mode {
            case "upload":
                guard let path else { break }
                let json = try await Request {
                    Url(url)
                    Method(.post)
                    Form {
                        Field("title", "benchmark")
                        FilePart("file", url: URL(fileURLWithPath: path), type: .octetStream)
                    }
                    Timeout(120)
                }.json()
                outcome.set("server received \(json["bytes"].int ?? -1) bytes")
            case "download":
                guard let path else { break }
                let destination = URL(fileURLWithPath: path)
                try await Request {
                    Url(url); Timeout(120)
                }.download(to: destination)
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber) ?? nil
                outcome.set("file has \(size?.intValue ?? -1) bytes")
            case "stream":
                var total = 0
                let response = try await Request {
                    Url(url)
                    Timeout(120)
                }.stream()
                for try await chunk in response { total += chunk.count }
                outcome.set("consumer counted \(total) bytes")
            default:
                _ = try await Request { Url(url) }.data()
                outcome.set("-")
            }
        } catch {
            outcome.set("failed: \(error)")
        }
        done.signal()
    }
    done.wait()
    let seconds =
        Double((clock.now - start).components.attoseconds) / 1e18 + Double((clock.now - start).components.seconds)
    print("result \(processStatus("VmHWM")) \(formatted(seconds, decimals: 2)) \(outcome.value)")
}

/// Writes `bytes` of a repeating pattern to `url`, 4 MiB at a time.
private func writeFile(_ url: URL, bytes: Int) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let block = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    var written = 0
    while written < bytes {
        let count = min(block.count, bytes - written)
        try handle.write(contentsOf: block.prefix(count))
        written += count
    }
}

/// The child's result text, set from its task.
private final class Outcome: @unchecked Sendable {
    // Safe: `text` is only touched while holding `lock`.
    private let lock = NSLock()
    private var text = "no result"

    func set(_ value: String) { lock.withLock { text = value } }
    var value: String { lock.withLock { text } }
}
