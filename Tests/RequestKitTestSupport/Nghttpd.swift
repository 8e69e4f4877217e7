#if canImport(CNghttp2)
import Foundation
import RequestKitHTTP2

/// nghttpd run by a test in a directory of its own, h2c on a free port of 127.0.0.1; ``stop()`` ends it.
package final class Nghttpd: Sendable {
    package static let executable = "/usr/sbin/nghttpd"

    package let port: Int
    private let process: ChildProcess
    private let directory: URL

    private init(port: Int, process: ChildProcess, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    /// Starts nghttpd with `arguments`, serving a directory `prepare` fills (its result adds arguments), and returns
    /// once it accepts connections.
    package static func start(
        arguments: [String] = [], prepare: (URL) throws -> [String] = { _ in [] }
    ) async throws -> Nghttpd {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nghttpd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let extra = try prepare(directory)
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        let process = try ChildProcess(
            executable,
            ["--no-tls", "--address=127.0.0.1", "--htdocs=\(directory.path)"] + arguments + extra + [String(port)])
        let server = Nghttpd(port: port, process: process, directory: directory)
        for _ in 0..<100 {
            if (try? await offThePool { _ = try BlockingHTTPConnection(port: port, timeout: .seconds(1)) }) != nil {
                return server
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        server.stop()
        throw HTTP2ConnectionFailure.closed
    }

    /// Ends nghttpd and removes its directory.
    package func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
#endif
