import Foundation
import RequestKitTesting
import Testing

@testable import RequestKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts this process's sockets connected to a port, matching `/proc/self/fd` socket inodes with the
/// connections listed in `/proc/net/tcp` and `/proc/net/tcp6`, so other suites' sockets are never counted.
private func socketsConnected(toPort port: Int) -> Int {
    let fdDirectory = "/proc/self/fd"
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return -1 }
    var inodes = Set<String>()
    for entry in entries {
        var link = [CChar](repeating: 0, count: 256)
        let length = readlink("\(fdDirectory)/\(entry)", &link, link.count - 1)
        guard length > 0 else { continue }
        let target = String(decoding: link[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard target.hasPrefix("socket:[") else { continue }
        inodes.insert(String(target.dropFirst(8).dropLast()))
    }
    let portSuffix = ":" + String(format: "%04X", port)
    var count = 0
    for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
        guard let handle = FileHandle(forReadingAtPath: table) else { continue }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try? handle.close()
        for line in text.split(separator: "\n").dropFirst() {
            let columns = line.split(separator: " ")
            guard columns.count > 9, columns[2].hasSuffix(portSuffix), inodes.contains(String(columns[9])) else {
                continue
            }
            count += 1
        }
    }
    return count
}

@Suite(
    "HTTP1Transport: file descriptors", .serialized,
    .enabled(if: FileManager.default.fileExists(atPath: "/proc/net/tcp")))
struct HTTP1TransportDescriptorTests {
    @Test("Successes, failures, timeouts and cancellations leave no socket open once the pool is closed")
    func noLeaks() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let transport = HTTP1Transport()
        for path in ["/get", "/fault/close", "/fault/truncate", "/fault/bad-chunk", "/chunked?chunks=3&size=4"] {
            _ = try? await transport.send(URLRequest(url: server.url(path)))
        }
        var hang = URLRequest(url: server.url("/fault/hang"))
        hang.timeoutInterval = 0.2
        _ = try? await transport.send(hang)
        let cancelled = Task { try await transport.send(URLRequest(url: server.url("/delay/10"))) }
        #expect(await server.waitForRequests(count: 4, timeout: .seconds(5)))
        cancelled.cancel()
        _ = await cancelled.result
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 { group.addTask { _ = try await transport.send(URLRequest(url: server.url("/get"))) } }
            try await group.waitForAll()
        }
        #expect(socketsConnected(toPort: server.port) > 0)
        transport.closeIdleConnections()
        var open = -1
        for _ in 0..<100 where open != 0 {
            open = socketsConnected(toPort: server.port)
            if open != 0 { try await Task.sleep(nanoseconds: 20_000_000) }
        }
        #expect(open == 0)
    }
}
