import Foundation
import RequestKitDSL
import RequestKitTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A real proxy from Debian, run by a test on 127.0.0.1 and a free port: tinyproxy (HTTP and CONNECT, with Basic
/// authentication) or microsocks (SOCKS5, with a user name and password). `.ci/run` installs both and sets
/// `REQUESTKIT_REQUIRE_PROXIES`, so CI runs every test that needs them; elsewhere the tests skip when a binary is
/// missing.
final class RealProxy: Sendable {
    private let process: ChildProcess
    private let folder: URL
    let port: Int

    /// Whether the tests that need `name` run: it is installed, or CI requires it (then a missing binary fails).
    static func isRunnable(_ name: String) -> Bool {
        path(of: name) != nil || ProcessInfo.processInfo.environment["REQUESTKIT_REQUIRE_PROXIES"] != nil
    }

    static func path(of name: String) -> String? {
        ["/usr/bin/", "/usr/sbin/", "/usr/local/bin/"].map { $0 + name }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// tinyproxy, asking for `user` and `password` when given. Its idle timeout is ten minutes: a tunnel a test
    /// holds open (a WebSocket between its handshake and its first message) stays open however long a busy machine
    /// keeps the test from going on; with tinyproxy's usual 30 s it closed under load.
    static func tinyproxy(user: String? = nil, password: String? = nil) async throws -> RealProxy {
        let port = try freePort()
        var configuration = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 600
            MaxClients 64
            LogLevel Error
            Allow 127.0.0.1
            DisableViaHeader Yes

            """
        if let user, let password { configuration += "BasicAuth \(user) \(password)\n" }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("tinyproxy.conf")
        try Data(configuration.utf8).write(to: file)
        return try await started(binary: "tinyproxy", arguments: ["-d", "-c", file.path], port: port, folder: folder)
    }

    /// microsocks, asking for `user` and `password` when given.
    static func microsocks(user: String? = nil, password: String? = nil) async throws -> RealProxy {
        let port = try freePort()
        var arguments = ["-i", "127.0.0.1", "-p", String(port)]
        if let user, let password { arguments += ["-u", user, "-P", password] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("microsocks-\(UUID().uuidString)")
        return try await started(binary: "microsocks", arguments: arguments, port: port, folder: folder)
    }

    /// Starts `binary` and returns once it accepts a connection, looking every 50 ms for at most 30 s. The test's
    /// task sleeps between looks: it never holds a thread of the cooperative pool while the proxy starts.
    private static func started(binary: String, arguments: [String], port: Int, folder: URL) async throws -> RealProxy {
        guard let path = Self.path(of: binary) else {
            throw POSIXError(.ENOENT)  // not installed: apt-get install it
        }
        let proxy = RealProxy(process: try ChildProcess(path, arguments), port: port, folder: folder)
        for _ in 0..<600 {
            if Self.accepts(port) { return proxy }
            try await Task.sleep(for: .milliseconds(50))
        }
        proxy.stop()
        throw POSIXError(.ETIMEDOUT)  // it never listened
    }

    private init(process: ChildProcess, port: Int, folder: URL) {
        self.process = process
        self.port = port
        self.folder = folder
    }

    /// Ends the proxy at once (tinyproxy would wait for its open connections on SIGTERM, and a transport's pool
    /// keeps them open) and removes its folder.
    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: folder)
    }

    deinit { stop() }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0, then closed).
    static func freePort() throws -> Int {
        let listener = try SilentListener()
        defer { listener.close() }
        return listener.port
    }

    private static func accepts(_ port: Int) -> Bool {
        let descriptor = LoopbackListener.streamSocket()
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = LoopbackListener.address(port: port)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
