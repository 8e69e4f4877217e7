import Foundation
import RequestKitTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a `TestServer` costs per idle keep-alive connection: a `TestServer` in a child process (`connections
/// --child`), `count` plain sockets that each send one `GET /get` and read its answer, then stay open and idle. Prints
/// the child's threads and resident memory before the connections, with all of them open (sampled every 20 ms in
/// between for the peak), and how long opening them took. Linux only (it reads the child's /proc status).
func runTestServerConnectionsBenchmark(count: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["connections", "--child"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    do { try process.run() } catch {
        print("\nTestServer connections: skipped (the child did not start: \(error))")
        return
    }
    defer {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
    var line = Data()
    while let byte = try? output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != 0x0A {
        line.append(first)
    }
    guard let port = UInt16(String(decoding: line, as: UTF8.self)) else {
        print("\nTestServer connections: skipped (the child printed no port)")
        return
    }
    let child = String(process.processIdentifier)
    // The child has served one request on one connection, so its loops and first handler state exist.
    let threadsBefore = processStatus("Threads", process: child)
    let residentBefore = Double(processStatus("VmRSS", process: child)) / 1024
    let peak = ChildThreadPeak(process: child)
    let start = DispatchTime.now().uptimeNanoseconds
    var sockets: [Int32] = []
    var failures = 0
    for _ in 0..<count {
        if let socket = openKeptAliveConnection(port: port) { sockets.append(socket) } else { failures += 1 }
    }
    let openSeconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    Thread.sleep(forTimeInterval: 1)
    let threadsOpen = processStatus("Threads", process: child)
    let residentOpen = Double(processStatus("VmRSS", process: child)) / 1024
    let peakThreads = peak.finish()
    for socket in sockets { close(socket) }
    let perConnectionKiB = sockets.isEmpty ? 0 : (residentOpen - residentBefore) * 1024 / Double(sockets.count)
    print("\nTestServer: \(count) idle keep-alive connections (one GET /get answered on each), the server alone")
    print(
        "| open and idle | failed | opened in, s | server threads before | server threads, all open | peak threads | "
            + "server RSS before | server RSS, all open | per connection |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(
        "| \(sockets.count) of \(count) | \(failures) | \(formatted(openSeconds, decimals: 2)) | \(threadsBefore) | "
            + "\(threadsOpen) | \(peakThreads) | \(formatted(residentBefore)) MiB | \(formatted(residentOpen)) MiB | "
            + "\(formatted(perConnectionKiB)) KiB |")
}

/// The child's side: a `TestServer` that has answered one request, its port on standard output, running until
/// standard input closes.
func runTestServerChild() {
    guard let server = try? TestServer(), let socket = openKeptAliveConnection(port: UInt16(server.port)) else {
        print("no server")
        return
    }
    close(socket)
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    server.stop()
}

/// A blocking socket to 127.0.0.1:`port` that has sent `GET /get` and read the whole answer, or nil.
private func openKeptAliveConnection(port: UInt16) -> Int32? {
    #if canImport(Glibc)
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard socket >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    let request = Array("GET /get HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    guard connected == 0, send(socket, request, request.count, 0) == request.count else {
        close(socket)
        return nil
    }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(socket, &buffer, buffer.count, 0)
        guard count > 0 else {
            close(socket)
            return nil
        }
        received += buffer[0..<count]
        let text = String(decoding: received, as: UTF8.self)
        guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
        let length =
            text[..<headEnd.lowerBound].split(separator: "\r\n")
            .first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        if received.count - text.utf8.distance(from: text.utf8.startIndex, to: headEnd.upperBound) >= length {
            return socket
        }
    }
}

/// The highest thread count of another process, sampled every 20 ms on a thread of its own.
private final class ChildThreadPeak: @unchecked Sendable {
    // Safe: `highest` and `isDone` are only touched while holding `lock`.
    private let lock = NSLock()
    private var highest = 0
    private var isDone = false

    init(process: String) {
        let thread = Thread { [self] in
            while !lock.withLock({ isDone }) {
                let threads = processStatus("Threads", process: process)
                lock.withLock { highest = max(highest, threads) }
                usleep(20_000)
            }
        }
        thread.start()
    }

    /// Stops sampling and returns the peak.
    func finish() -> Int {
        lock.withLock {
            isDone = true
            return highest
        }
    }
}
