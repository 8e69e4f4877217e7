import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a socket connects: an IPv4 or IPv6 address with a port, or the path of a Unix domain socket.
///
/// It holds the system's socket address (`sockaddr_in`, `sockaddr_in6`, `sockaddr_un`) as made once, so a
/// connection hands it to `connect(2)` as it is. Made from numeric text only: it never looks a name up.
///
/// ```swift
/// let server = SocketAddress(ip: "2001:db8::1", port: 443)   // [2001:db8::1]:443
/// let docker = try SocketAddress(unixPath: "/var/run/docker.sock")
/// ```
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of socket address.
    ///
    /// ```swift
    /// if address.family == .ipv6 { print("IPv6") }
    /// ```
    public enum Family: Sendable, Hashable, CustomStringConvertible {
        /// An IPv4 address and port (`AF_INET`).
        case ipv4
        /// An IPv6 address and port (`AF_INET6`).
        case ipv6
        /// A Unix domain socket's path (`AF_UNIX`).
        case unix

        public var description: String {
            switch self {
            case .ipv4: "IPv4"
            case .ipv6: "IPv6"
            case .unix: "Unix"
            }
        }
    }

    /// The kind of address.
    public let family: Family
    /// The system's socket address, as `connect(2)` takes it.
    package let bytes: [UInt8]

    /// An IP address in numeric form (`192.0.2.7`, `2001:db8::1`, `fe80::1%eth0`) and a port; nil when `ip` is not
    /// one or the port is outside 0...65535.
    ///
    /// ```swift
    /// let address = SocketAddress(ip: "127.0.0.1", port: 8080)
    /// ```
    /// - Parameters:
    ///   - ip: The address, numeric (a host name is never looked up).
    ///   - port: The port.
    public init?(ip: String, port: Int) {
        guard (0...65535).contains(port), !ip.isEmpty, !ip.utf8.contains(0) else { return nil }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(ip, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        guard let address = first.pointee.ai_addr else { return nil }
        self.init(bytes: Array(UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen))))
    }

    /// The path of a Unix domain socket.
    ///
    /// ```swift
    /// let address = try SocketAddress(unixPath: "/var/run/docker.sock")
    /// ```
    /// - Parameter unixPath: The socket's path in the file system.
    /// - Throws: ``RequestError`` of kind ``RequestError/Kind/invalidRequest`` when the path is empty, holds a NUL
    ///   byte, or is longer than the system's `sockaddr_un` holds (107 bytes on Linux, 103 on Apple platforms): a
    ///   path is never cut short.
    public init(unixPath: String) throws(RequestError) {
        let path = Array(unixPath.utf8)
        let capacity = Self.unixPathCapacity
        guard !path.isEmpty else {
            throw .invalidRequest([RequestProblem(.invalidSocketPath, "The Unix socket path is empty")])
        }
        guard !path.contains(0) else {
            throw .invalidRequest([
                RequestProblem(.invalidSocketPath, "The Unix socket path \"\(unixPath)\" holds a NUL byte")
            ])
        }
        guard path.count < capacity else {
            throw .invalidRequest([
                RequestProblem(
                    .invalidSocketPath,
                    "The Unix socket path \"\(unixPath)\" has \(path.count) bytes; this system takes at most "
                        + "\(capacity - 1)")
            ])
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: path)
            raw[path.count] = 0
        }
        let length =
            MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path).map { $0 + path.count + 1 }
            ?? MemoryLayout<sockaddr_un>.size
        #if canImport(Darwin)
        address.sun_len = UInt8(truncatingIfNeeded: length)
        #endif
        family = .unix
        bytes = withUnsafeBytes(of: &address) { Array($0.prefix(length)) }
    }

    /// An address copied from the system's socket address bytes (a resolver's answer, `getpeername`); nil when
    /// they are not an IPv4, IPv6 or Unix address of the right length.
    ///
    /// ```swift
    /// let address = SocketAddress(bytes: bytesFromTheResolver)
    /// ```
    package init?(bytes: [UInt8]) {
        guard bytes.count >= 2 else { return nil }
        let rawFamily = bytes.withUnsafeBytes { raw -> Int32 in
            Int32(raw.loadUnaligned(fromByteOffset: Self.familyOffset, as: sa_family_t.self))
        }
        switch rawFamily {
        case AF_INET where bytes.count >= MemoryLayout<sockaddr_in>.size:
            family = .ipv4
            self.bytes = Array(bytes.prefix(MemoryLayout<sockaddr_in>.size))
        case AF_INET6 where bytes.count >= MemoryLayout<sockaddr_in6>.size:
            family = .ipv6
            self.bytes = Array(bytes.prefix(MemoryLayout<sockaddr_in6>.size))
        case AF_UNIX where bytes.count > 2 && bytes.count <= MemoryLayout<sockaddr_un>.size:
            family = .unix
            self.bytes = bytes
        default:
            return nil
        }
    }

    /// This address with another port; a Unix address stays as it is.
    ///
    /// ```swift
    /// let https = address.withPort(443)
    /// ```
    package func withPort(_ port: Int) -> SocketAddress {
        guard family != .unix, (0...65535).contains(port) else { return self }
        var copy = bytes
        // sin_port and sin6_port sit at the same offset, right after the family, in network order.
        let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_port) ?? 2
        copy[offset] = UInt8(port >> 8)
        copy[offset + 1] = UInt8(port & 0xFF)
        return SocketAddress(family: family, bytes: copy)
    }

    private init(family: Family, bytes: [UInt8]) {
        self.family = family
        self.bytes = bytes
    }

    /// The port; nil for a Unix socket.
    ///
    /// ```swift
    /// print(address.port ?? 0)
    /// ```
    public var port: Int? {
        guard family != .unix else { return nil }
        let offset = MemoryLayout<sockaddr_in>.offset(of: \sockaddr_in.sin_port) ?? 2
        return bytes.withUnsafeBytes {
            Int(UInt16(bigEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        }
    }

    /// The address in numeric form without the port (`192.0.2.7`, `2001:db8::1`), or the Unix socket's path.
    ///
    /// ```swift
    /// print(address.host)
    /// ```
    public var host: String {
        switch family {
        case .unix:
            let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
            return String(decoding: bytes.dropFirst(offset).prefix { $0 != 0 }, as: UTF8.self)
        case .ipv4, .ipv6:
            var name = [CChar](repeating: 0, count: 1025)  // NI_MAXHOST
            let status = bytes.withUnsafeBytes { raw -> Int32 in
                guard let base = raw.baseAddress else { return -1 }
                return getnameinfo(
                    base.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count), &name, socklen_t(name.count),
                    nil, 0, NI_NUMERICHOST)
            }
            guard status == 0 else { return "" }
            return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// `192.0.2.7:443`, `[2001:db8::1]:443`, or `unix:/var/run/docker.sock`.
    public var description: String {
        switch family {
        case .ipv4: "\(host):\(port ?? 0)"
        case .ipv6: "[\(host)]:\(port ?? 0)"
        case .unix: "unix:\(host)"
        }
    }

    /// Calls `body` with the address as `connect(2)` and `bind(2)` take it.
    package func withSystemAddress<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) rethrows -> Result {
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { $0.copyBytes(from: bytes.prefix($0.count)) }
        let length = socklen_t(min(bytes.count, MemoryLayout<sockaddr_storage>.size))
        return try withUnsafePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }

    /// The system's family constant (`AF_INET`, `AF_INET6`, `AF_UNIX`).
    package var systemFamily: Int32 {
        switch family {
        case .ipv4: AF_INET
        case .ipv6: AF_INET6
        case .unix: AF_UNIX
        }
    }

    /// The room `sockaddr_un` has for a path, its terminating NUL included.
    package static var unixPathCapacity: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) }

    #if canImport(Darwin)
    private static let familyOffset = 1
    #else
    private static let familyOffset = 0
    #endif
}

extension RequestProblem.Kind {
    /// A Unix domain socket path that cannot be used: empty, holding a NUL byte, or longer than the system's
    /// socket address holds.
    ///
    /// ```swift
    /// if error.problems.contains(where: { $0.kind == .invalidSocketPath }) { print("check the socket path") }
    /// ```
    public static let invalidSocketPath = Self("invalidSocketPath")
}
