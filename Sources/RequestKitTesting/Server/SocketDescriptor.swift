import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A thin wrapper over a POSIX TCP socket descriptor with the few calls the server needs.
///
/// The descriptor is a plain value; whoever owns it closes it exactly once.
///
/// ```swift
/// let listener = try SocketDescriptor.listenOnLoopback(backlog: 512)
/// ```
struct SocketDescriptor: Sendable, Hashable {
    /// The raw file descriptor.
    let rawValue: Int32

    /// An error from a socket call, with the failing call's name and `errno`.
    struct Failure: Error, CustomStringConvertible {
        /// The name of the system call that failed.
        let call: String
        /// The `errno` value after the failure.
        let code: Int32

        var description: String { "\(call) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    #if canImport(Glibc)
    private static let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #else
    private static let streamType = SOCK_STREAM
    #endif

    #if os(Linux)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    /// Creates a socket bound to `127.0.0.1` on a free port chosen by the system, and starts listening.
    static func listenOnLoopback(backlog: Int32) throws -> SocketDescriptor {
        let socket = try bindOnLoopback(reusingAddress: true)
        guard listen(socket.rawValue, backlog) == 0 else {
            let failure = Failure(call: "listen", code: errno)
            socket.close()
            throw failure
        }
        return socket
    }

    /// Creates a socket bound to `127.0.0.1` on a free port chosen by the system, without listening.
    ///
    /// Without `reusingAddress`, no other socket can bind the port while this one is open, and connections to it
    /// are refused.
    static func bindOnLoopback(reusingAddress: Bool) throws -> SocketDescriptor {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw Failure(call: "socket", code: errno) }
        let socket = SocketDescriptor(rawValue: fd)
        do {
            if reusingAddress { try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1) }
            socket.disableSIGPIPE()
            var address = sockaddr_in()
            #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
            #endif
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw Failure(call: "bind", code: errno) }
            return socket
        } catch {
            socket.close()
            throw error
        }
    }

    /// The local port the socket is bound to.
    func localPort() throws -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(rawValue, $0, &length) }
        }
        guard result == 0 else { throw Failure(call: "getsockname", code: errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Accepts one pending connection, or returns `nil` when none is pending or the call failed.
    func acceptConnection() -> SocketDescriptor? {
        let fd = accept(rawValue, nil, nil)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let connection = SocketDescriptor(rawValue: fd)
        connection.disableSIGPIPE()
        try? connection.setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return connection
    }

    /// Makes reads, writes and accepts on the socket return at once instead of waiting.
    func setNonBlocking() {
        _ = fcntl(rawValue, F_SETFL, fcntl(rawValue, F_GETFL) | O_NONBLOCK)
    }

    /// One `send` call on the non-blocking socket: the count written, or -1 with `errno` set.
    func sendWithoutWaiting(_ base: UnsafeRawPointer, count: Int) -> Int {
        send(rawValue, base, count, Self.sendFlags)
    }

    /// Stops both directions of the connection, waking any thread blocked on it.
    func shutdownBoth() {
        _ = shutdown(rawValue, Int32(SHUT_RDWR))
    }

    /// Stops sending (the peer reads end of stream) while still allowing reads.
    func shutdownWrite() {
        _ = shutdown(rawValue, Int32(SHUT_WR))
    }

    /// Releases the descriptor.
    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(rawValue)
        #elseif canImport(Musl)
        _ = Musl.close(rawValue)
        #elseif canImport(Darwin)
        _ = Darwin.close(rawValue)
        #endif
    }

    private func setOption(_ level: Int32, _ name: Int32, _ value: Int32) throws {
        var value = value
        guard setsockopt(rawValue, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw Failure(call: "setsockopt", code: errno)
        }
    }

    private func disableSIGPIPE() {
        #if canImport(Darwin)
        try? setOption(SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
    }
}
