#if canImport(COpenSSL)
import COpenSSL
import Foundation

@testable import RequestKitTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An `https` proxy stand-in on 127.0.0.1: TLS with the test CA's certificate for 127.0.0.1, then one `CONNECT`
/// per connection, answered with 200, then the connection's bytes relayed both ways to 127.0.0.1 at the port the
/// `CONNECT` named (the origin's TLS passes through it untouched). It records each `CONNECT` it was sent.
final class TLSConnectProxy: @unchecked Sendable {
    /// One `CONNECT` the stand-in received.
    struct Connect: Sendable, Equatable {
        /// The request target, `host:port`.
        let target: String
        /// The `Proxy-Authorization` header, if any.
        let proxyAuthorization: String?
    }

    let port: Int
    private let listener: SocketDescriptor
    private let context: ServerTLSContext
    private let state = Locked(State())

    private struct State {
        var connects: [Connect] = []
        var connections = 0
        var isStopped = false
    }

    /// The `CONNECT` requests received, in order.
    var connects: [Connect] { state.withLock { $0.connects } }
    /// The TCP connections accepted.
    var connections: Int { state.withLock { $0.connections } }

    init() throws {
        context = try ServerTLSContext(TestServer.TLS(certificate: .valid))
        listener = try SocketDescriptor.listenOnLoopback(backlog: 16)
        port = try listener.localPort()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        state.withLock { $0.isStopped = true }
        listener.shutdownBoth()
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    private func acceptLoop() {
        while !isStopped, let client = listener.acceptConnection() {
            state.withLock { $0.connections += 1 }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
        listener.close()
    }

    private func serve(_ client: SocketDescriptor) {
        guard let ssl = SSL_new(context.pointer) else { return client.close() }
        defer {
            SSL_free(ssl)
            client.close()
        }
        guard let method = ServerTLSContext.socketMethod, let bio = requestkit_socket_bio_new(method, client.rawValue)
        else { return }
        SSL_set_bio(ssl, bio, bio)
        guard SSL_accept(ssl) == 1, let connect = readConnect(ssl),
            let originPort = connect.target.split(separator: ":").last.flatMap({ Int($0) }),
            let origin = Self.connectToLoopback(port: originPort)
        else { return }
        defer { origin.close() }
        state.withLock { $0.connects.append(connect) }
        guard writeAll(ssl, client, Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)) else { return }
        client.setNonBlocking()
        relay(ssl, client, origin)
        _ = SSL_shutdown(ssl)
    }

    /// Reads the `CONNECT` head, blocking.
    private func readConnect(_ ssl: OpaquePointer) -> Connect? {
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while !head.reversed().starts(with: Array("\n\r\n\r".utf8)) {
            guard head.count < 8192, SSL_read(ssl, &byte, 1) == 1 else { return nil }
            head.append(byte)
        }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3, requestLine[0] == "CONNECT" else { return nil }
        let authorization = lines.dropFirst().first { $0.lowercased().hasPrefix("proxy-authorization:") }
            .map { $0.dropFirst("proxy-authorization:".count).trimmingCharacters(in: .whitespaces) }
        return Connect(target: String(requestLine[1]), proxyAuthorization: authorization)
    }

    /// Copies bytes both ways until either side closes or the stand-in stops.
    private func relay(_ ssl: OpaquePointer, _ client: SocketDescriptor, _ origin: SocketDescriptor) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !isStopped {
            var descriptors = [
                pollfd(fd: client.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: origin.rawValue, events: Int16(POLLIN), revents: 0),
            ]
            if SSL_pending(ssl) == 0 { _ = poll(&descriptors, 2, 100) } else { descriptors[0].revents = Int16(POLLIN) }
            if descriptors[0].revents != 0 {
                while true {
                    let count = SSL_read(ssl, &buffer, Int32(buffer.count))
                    if count > 0 {
                        guard Self.sendAll(origin, buffer[0..<Int(count)]) else { return }
                        continue
                    }
                    if SSL_get_error(ssl, count) == SSL_ERROR_WANT_READ { break }
                    return
                }
            }
            if descriptors[1].revents != 0 {
                let count = recv(origin.rawValue, &buffer, buffer.count, 0)
                guard count > 0, writeAll(ssl, client, Array(buffer[0..<count])) else { return }
            }
        }
    }

    /// Writes every byte with TLS, waiting while the (possibly non-blocking) socket is full.
    private func writeAll(_ ssl: OpaquePointer, _ client: SocketDescriptor, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            if count > 0 {
                offset += Int(count)
                continue
            }
            let code = SSL_get_error(ssl, count)
            guard code == SSL_ERROR_WANT_WRITE || code == SSL_ERROR_WANT_READ, !isStopped else { return false }
            var descriptor = pollfd(
                fd: client.rawValue, events: Int16(code == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
        }
        return true
    }

    private static func sendAll(_ origin: SocketDescriptor, _ bytes: ArraySlice<UInt8>) -> Bool {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let sent = bytes[offset...].withUnsafeBytes {
                send(origin.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    private static func connectToLoopback(port: Int) -> SocketDescriptor? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            _ = close(descriptor)
            return nil
        }
        return SocketDescriptor(rawValue: descriptor)
    }
}
#endif
