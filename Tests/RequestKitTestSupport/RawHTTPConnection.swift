import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A client socket for writing exact request bytes and reading exact response bytes in tests.
///
/// Every read and write blocks, so each runs on a thread of its own while the test's task suspends: a test never
/// blocks a thread of Swift's cooperative pool, nor one of Dispatch's, which the transports under test use. Tests
/// await one operation before starting the next, so operations on a connection never overlap.
package final class RawHTTPConnection: Sendable {
    package typealias Failure = BlockingHTTPConnection.Failure

    private let connection: BlockingHTTPConnection

    /// The socket's descriptor.
    package var fd: Int32 { connection.fd }

    /// Connects to `127.0.0.1:port`; reads give up after `timeout` without data.
    package init(port: Int, timeout: Duration = .seconds(60)) throws {
        connection = try BlockingHTTPConnection(port: port, timeout: timeout)
    }

    /// Runs `body` on a thread of its own and suspends until it returns.
    private func perform<T: Sendable>(
        _ body: @escaping @Sendable (BlockingHTTPConnection) throws -> T
    ) async throws -> T {
        try await offThePool { [connection] in try body(connection) }
    }

    /// Sends `text` as UTF-8.
    package func send(_ text: String) async throws { try await perform { try $0.send(Data(text.utf8)) } }

    /// Sends every byte of `data`.
    package func send(_ data: Data) async throws { try await perform { try $0.send(data) } }

    /// Stops sending; the server reads end of stream.
    package func shutdownWrite() async { _ = try? await perform { $0.shutdownWrite() } }

    /// Closes the socket (idempotent).
    package func close() async { _ = try? await perform { $0.close() } }

    /// Reads everything until the server closes the connection (or the read timeout passes).
    package func readToEnd() async -> Data { (try? await perform { $0.readToEnd() }) ?? Data() }

    /// Whether the server closed the connection: a read returns end of stream with nothing buffered.
    package func isClosedByServer() async -> Bool { (try? await perform { $0.isClosedByServer() }) ?? false }

    /// Reads a line ending in CRLF, without the CRLF.
    package func readLine() async throws -> String { try await perform { try $0.readLine() } }

    /// Reads exactly `count` bytes.
    package func read(count: Int) async throws -> Data { try await perform { try $0.read(count: count) } }

    /// Reads one response; `forHEAD` says the request was `HEAD` so no body follows.
    package func readResponse(forHEAD: Bool = false) async throws -> RawHTTPResponse {
        try await perform { try $0.readResponse(forHEAD: forHEAD) }
    }
}

/// The blocking socket behind ``RawHTTPConnection``.
///
/// `@unchecked Sendable` because its mutable buffer is only touched by one operation at a time: the owning
/// connection's callers await each operation before starting the next (and `deinit` runs after every use).
package final class BlockingHTTPConnection: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) { self.description = description }
    }

    package let fd: Int32
    private var buffer: [UInt8] = []
    private var isClosed = false

    /// Connects to `127.0.0.1:port`; reads give up after `timeout` without data.
    package init(port: Int, timeout: Duration = .seconds(60)) throws {
        #if canImport(Glibc)
        let streamType = Int32(SOCK_STREAM.rawValue)
        #else
        let streamType = SOCK_STREAM
        #endif
        fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: \(errno)") }
        let (seconds, attoseconds) = timeout.components
        var interval = timeval(tv_sec: Int(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        #if canImport(Darwin)
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            // No close here: a class whose initializer throws after initializing every property still runs
            // deinit, which closes the descriptor. Closing twice could close an unrelated, reused descriptor.
            throw Failure(description: "connect failed: errno \(errno)")
        }
    }

    deinit {
        close()
    }

    /// Sends `text` as UTF-8.
    package func send(_ text: String) throws {
        try send(Data(text.utf8))
    }

    /// Sends every byte of `data`.
    package func send(_ data: Data) throws {
        #if os(Linux)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        let flags: Int32 = 0
        #endif
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                guard let base = bytes.baseAddress else { return }
                let count = sendBytes(fd, base + offset, bytes.count - offset, flags)
                guard count > 0 else { throw Failure(description: "send failed: errno \(errno)") }
                offset += count
            }
        }
    }

    /// Stops sending; the server reads end of stream.
    package func shutdownWrite() {
        _ = shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the socket (idempotent).
    package func close() {
        guard !isClosed, fd >= 0 else { return }
        isClosed = true
        _ = closeDescriptor(fd)
    }

    /// Receives more bytes into the buffer; returns `false` at end of stream or on timeout.
    @discardableResult
    private func fill() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 65536)
        var count = recv(fd, &scratch, scratch.count, 0)
        // A signal (a debugger attaching, say) interrupts a receive with a timeout; it is not the end of the stream.
        while count < 0, errno == EINTR { count = recv(fd, &scratch, scratch.count, 0) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: scratch[0..<count])
        return true
    }

    /// The bytes buffered, or those of one receive when none are: nil at end of stream or on timeout.
    package func readAvailable() -> Data? {
        if buffer.isEmpty, !fill() { return nil }
        defer { buffer.removeAll() }
        return Data(buffer)
    }

    /// Reads everything until the server closes the connection (or the read timeout passes).
    package func readToEnd() -> Data {
        while fill() {}
        defer { buffer.removeAll() }
        return Data(buffer)
    }

    /// Whether the server closed the connection: a read returns end of stream with nothing buffered.
    package func isClosedByServer() -> Bool {
        buffer.isEmpty && !fill() && buffer.isEmpty
    }

    /// Reads a line ending in CRLF, without the CRLF.
    package func readLine() throws -> String {
        while true {
            if let index = buffer.firstIndex(of: 10), index > 0, buffer[index - 1] == 13 {
                let line = String(decoding: buffer[0..<(index - 1)], as: UTF8.self)
                buffer.removeFirst(index + 1)
                return line
            }
            guard fill() else { throw Failure(description: "connection ended inside a line: \(buffer.count) bytes") }
        }
    }

    /// Reads exactly `count` bytes.
    package func read(count: Int) throws -> Data {
        while buffer.count < count {
            guard fill() else { throw Failure(description: "connection ended with \(buffer.count)/\(count) bytes") }
        }
        defer { buffer.removeFirst(count) }
        return Data(buffer[0..<count])
    }

    /// Reads one response; `forHEAD` says the request was `HEAD` so no body follows.
    package func readResponse(forHEAD: Bool = false) throws -> RawHTTPResponse {
        var response = RawHTTPResponse()
        response.statusLine = try readLine()
        let parts = response.statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw Failure(description: "bad status line \(response.statusLine)")
        }
        response.status = status
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad header \(line)") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            response.headers.append((String(line[..<colon]), value))
        }
        if forHEAD || (100..<200).contains(status) || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let sizeLine = try readLine()
                response.chunkSizes.append(sizeLine)
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                    throw Failure(description: "bad chunk size \(sizeLine)")
                }
                if size == 0 { break }
                response.body.append(try read(count: size))
                guard try readLine().isEmpty else { throw Failure(description: "chunk without CRLF") }
            }
            while true {
                let line = try readLine()
                if line.isEmpty { break }
                guard let colon = line.firstIndex(of: ":") else { throw Failure(description: "bad trailer \(line)") }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                response.trailers.append((String(line[..<colon]), value))
            }
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            response.body = try read(count: length)
        } else {
            response.body = readToEnd()
        }
        return response
    }
}

private func closeDescriptor(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #elseif canImport(Musl)
    Musl.close(fd)
    #else
    Darwin.close(fd)
    #endif
}

private func sendBytes(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
    Glibc.send(fd, pointer, count, flags)
    #elseif canImport(Musl)
    Musl.send(fd, pointer, count, flags)
    #else
    Darwin.send(fd, pointer, count, flags)
    #endif
}
