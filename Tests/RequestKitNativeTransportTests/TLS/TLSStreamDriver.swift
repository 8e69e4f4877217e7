#if os(Linux)
// COpenSSL's shim includes <sys/socket.h>: where another file of the same compile job imports COpenSSL, the socket
// constants (SOCK_STREAM, MSG_NOSIGNAL) resolve only in a file that imports it too.
#if canImport(COpenSSL)
import COpenSSL
#endif
import Foundation
import RequestKitTestSupport

@testable import RequestKitSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one HTTP/1.1 exchange through a ``TLSByteStream`` showed.
struct TLSExchange: Sendable {
    /// The response's status line, such as `HTTP/1.1 200 OK`.
    let statusLine: String
    /// The response headers, names lowercased.
    let headers: [String: String]
    /// Every byte after the head, as sent (the connection is read to its end).
    let body: Data
    /// Whether the handshake resumed an earlier session.
    let isSessionResumed: Bool
    /// The ALPN protocol the server selected.
    let applicationProtocol: String?
    /// The negotiated TLS version, such as `TLSv1.3`.
    let protocolVersion: String
    /// How many reads returned bytes the stream already held (``TLSByteStream/hasBufferedBytes`` was true), each
    /// made without waiting for the socket.
    let bufferedReads: Int
}

/// Drives a non-blocking ``TLSByteStream`` the way an event loop would, waiting with poll(2) for the readiness
/// each call asks for, on a thread of its own (never on the cooperative pool): connect, handshake, send one
/// request with `Connection: close`, read to the end.
///
/// ```swift
/// let exchange = try await TLSStreamDriver.get("/get", port: server.port, configuration: tls)
/// #expect(exchange.statusLine == "HTTP/1.1 200 OK")
/// ```
enum TLSStreamDriver {
    /// A driver failure that is not the stream's own error.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// How long any single wait may take before the exchange fails: generous, for a busy machine.
    static let waitLimit: Int32 = 30_000

    /// The exchanges that run at once, each on a thread of its own; the TLS suites' other tests wait for a turn
    /// (before connecting, so no server waits for them meanwhile) rather than start a thread each.
    private static let exchanges = AsyncLimiter(limit: 4)

    /// Sends `GET path` to `127.0.0.1:port` over TLS, verifying the server as `host`.
    static func get(
        _ path: String, port: Int, host: String = "127.0.0.1", configuration: TLSConfiguration,
        readBufferSize: Int = 16 * 1024
    ) async throws -> TLSExchange {
        try await exchanges.run {
            try await offThePool {
                try exchange(
                    "GET", path, body: Data(), port: port, host: host, configuration: configuration,
                    readBufferSize: readBufferSize)
            }
        }
    }

    /// Sends `POST path` with `body` to `127.0.0.1:port` over TLS.
    static func post(
        _ path: String, body: Data, port: Int, configuration: TLSConfiguration
    ) async throws -> TLSExchange {
        try await exchanges.run {
            try await offThePool {
                try exchange(
                    "POST", path, body: body, port: port, host: "127.0.0.1", configuration: configuration,
                    readBufferSize: 16 * 1024)
            }
        }
    }

    private static func exchange(
        _ method: String, _ path: String, body: Data, port: Int, host: String, configuration: TLSConfiguration,
        readBufferSize: Int
    ) throws -> TLSExchange {
        let descriptor = try connect(port: port)
        let stream: TLSByteStream
        do {
            stream = try TLSByteStream(descriptor: descriptor, host: host, port: port, configuration: configuration)
        } catch {
            _ = Glibc.close(descriptor)
            throw error
        }
        defer { stream.close() }
        _ = try drive(stream) { try stream.handshake() }
        let length = method == "GET" ? "" : "Content-Length: \(body.count)\r\n"
        var request = Data(
            "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\n\(length)Connection: close\r\n\r\n".utf8)
        request.append(body)
        var sent = 0
        while sent < request.count {
            sent += try drive(stream) {
                try request.withUnsafeBytes { try stream.write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
            }
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: readBufferSize)
        var bufferedReads = 0
        while true {
            if stream.hasBufferedBytes {
                guard case .transferred(let count) = try buffer.withUnsafeMutableBytes({ try stream.read(into: $0) })
                else { throw Failure(description: "a read of buffered bytes returned none") }
                bufferedReads += 1
                received.append(contentsOf: buffer[0..<count])
                continue
            }
            let count = try drive(stream) { try buffer.withUnsafeMutableBytes { try stream.read(into: $0) } }
            if count == 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let headEnd = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no response head in \(received.count) bytes")
        }
        let lines = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return TLSExchange(
            statusLine: lines.first ?? "", headers: headers, body: Data(received[headEnd.upperBound...]),
            isSessionResumed: stream.isSessionResumed, applicationProtocol: stream.negotiatedApplicationProtocol,
            protocolVersion: stream.negotiatedProtocolVersion, bufferedReads: bufferedReads)
    }

    /// Calls `step` until it moves bytes or reaches the end of the stream (0), polling for the readiness it asks for.
    static func drive(_ stream: TLSByteStream, _ step: () throws -> ByteStreamResult) throws -> Int {
        while true {
            switch try step() {
            case .transferred(let count): return count
            case .endOfStream: return 0
            case .wouldBlock(let interest):
                let events = Int16(interest == .readable ? POLLIN : POLLOUT)
                var descriptor = pollfd(fd: stream.descriptor, events: events, revents: 0)
                let ready = poll(&descriptor, 1, waitLimit)
                guard ready > 0 || (ready < 0 && errno == EINTR) else {
                    throw Failure(description: "no readiness (\(interest)) within \(waitLimit) ms")
                }
            }
        }
    }

    /// A non-blocking TCP socket connected to `127.0.0.1:port`.
    static func connect(port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if result != 0 && errno != EINPROGRESS {
            let code = errno
            _ = Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        var pending = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard poll(&pending, 1, waitLimit) == 1,
            getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length) == 0, failure == 0
        else {
            _ = Glibc.close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .ECONNREFUSED)
        }
        return descriptor
    }
}
#endif
