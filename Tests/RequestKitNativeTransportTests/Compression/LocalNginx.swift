import Foundation
import RequestKitDSL
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// nginx from Debian, run by a test on 127.0.0.1 and a free port, in a directory of its own: files to serve go in
/// ``root`` before ``start(directives:locations:)``; ``stop()`` ends it and removes the directory.
///
/// ```swift
/// let nginx = try LocalNginx()
/// defer { nginx.stop() }
/// try Data("hi".utf8).write(to: nginx.root.appendingPathComponent("hi.txt"))
/// try await nginx.start(directives: "access_log off;")
/// ```
final class LocalNginx {
    static let executable = "/usr/sbin/nginx"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// The server's own directory: its configuration, `logs/` and `root/`.
    let directory: URL
    /// The directory served.
    let root: URL
    /// The port it listens on: picked free, and picked again when another socket took it before nginx could.
    private(set) var port: Int
    private var process: ChildProcess?

    /// `http://127.0.0.1:<port>`.
    var base: String { "http://127.0.0.1:\(port)" }

    /// Makes the directory and picks the port; nothing runs yet.
    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("nginx-\(UUID().uuidString)")
        root = directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        port = try Self.freePort()
    }

    private static func freePort() throws -> Int {
        let listener = try SilentListener()
        defer { listener.close() }
        return listener.port
    }

    /// Starts nginx with `directives` in its `http` block and `locations` in its one server, and returns once it
    /// answers (recording an issue when it has not within 10 seconds). `listen` adds parameters to the server's
    /// `listen` line: `"http2"` makes it speak HTTP/2 alone, with prior knowledge (h2c), and it is then ready once it
    /// accepts a connection.
    func start(directives: String = "", locations: String = "", listen: String = "") async throws {
        // Between picking the port and nginx binding it, another test's server may take it: nginx then exits
        // without writing its pid file, and it starts again on another port (rather than the test talking to the
        // other server).
        for _ in 0..<5 {
            if try await launch(directives: directives, locations: locations, listen: listen) { break }
            port = try Self.freePort()
        }
        try await waitUntilReady(listen: listen)
    }

    /// Runs nginx on ``port``; false when it exited before listening (its port was taken).
    private func launch(directives: String, locations: String, listen: String) async throws -> Bool {
        let configuration = """
            daemon off;
            worker_processes 1;
            error_log \(directory.path)/logs/error.log;
            pid \(directory.path)/nginx.pid;
            events { worker_connections 64; }
            http {
                client_body_temp_path \(directory.path)/tmp;
                \(directives)
                server {
                    listen 127.0.0.1:\(port) \(listen);
                    root \(root.path);
                    \(locations)
                }
            }
            """
        let configurationFile = directory.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: configurationFile)
        let process = try ChildProcess(Self.executable, ["-p", directory.path, "-c", configurationFile.path])
        self.process = process
        let pidFile = directory.appendingPathComponent("nginx.pid").path
        for _ in 0..<1000 {
            if FileManager.default.fileExists(atPath: pidFile) { return true }
            if !process.isRunning { return false }
            try await Task.sleep(for: .milliseconds(10))
        }
        return process.isRunning
    }

    /// Waits until nginx accepts connections and answers, looking every 100 ms for up to a minute each: a busy
    /// machine can take more than ten seconds to start it.
    private func waitUntilReady(listen: String) async throws {
        let url = try #require(URL(string: "\(base)/"))
        if listen.contains("http2") {
            let port = port
            for _ in 0..<600 {
                if (try? await offThePool { _ = try BlockingHTTPConnection(port: port, timeout: .seconds(1)) }) != nil {
                    return
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("nginx did not accept connections on port \(port)\(diagnosis)")
            return
        }
        for _ in 0..<600 {
            if (try? await Request({
                Url(url); Using(NativeTransport.shared)
            }).send()) != nil {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("nginx did not answer at \(url)\(diagnosis)")
    }

    /// Whether nginx still runs, and the end of its error log: what a test that found it silent reports.
    private var diagnosis: String {
        let running = process?.isRunning == true ? "running" : "not running"
        let log = (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        return " (nginx is \(running); the end of its error log: \(log.suffix(600).debugDescription))"
    }

    /// Ends nginx (its worker too) and removes its directory.
    func stop() {
        process?.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
