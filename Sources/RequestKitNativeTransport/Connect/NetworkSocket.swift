import Foundation
import RequestKitConnect
import RequestKitModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls that open a non-blocking socket for a ``Connector``: addresses that need no lookup, starting
/// a connection to one address (TCP, or a Unix domain socket), and reading how it ended. Each failure is a
/// `POSIXError`, a timeout or an unknown host, which the transport tells apart.
enum NetworkSocket {
    /// Why a connection could not be opened or an exchange stopped, when it was not a parse error.
    enum Failure: Error, Sendable, Equatable {
        /// Nothing happened for the whole timeout.
        case timedOut
        /// A system call failed.
        case system(POSIXError)
        /// The host name did not resolve; the resolver's message says why.
        case hostNotFound(String)
    }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    #endif

    /// The addresses of `host` when it needs no name lookup (an IPv4 or IPv6 literal, or `localhost`, which
    /// `/etc/hosts` answers), so they can be had on the event loop without blocking it; nil when it needs one.
    static func addressesWithoutLookup(host: String, port: Int) throws(Failure) -> [SocketAddress]? {
        let isLocal = host.lowercased() == "localhost"
        guard isLocal || host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        do {
            return try resolve(host: host, port: port, numericOnly: !isLocal)
        } catch {
            throw .hostNotFound(error.message)
        }
    }

    /// Resolves `host` with `getaddrinfo` (of one family, or both when nil), which may block for a name lookup:
    /// never call it on an event loop or a task for a name that is not numeric.
    static func resolve(
        host: String, port: Int, family: SocketAddress.Family? = nil, numericOnly: Bool = false
    ) throws(ResolutionFailure) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family =
            switch family {
            case .ipv4?: AF_INET
            case .ipv6?: AF_INET6
            case .unix?, nil: AF_UNSPEC
            }
        hints.ai_socktype = streamType
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
            throw ResolutionFailure(status == EAI_NONAME ? .notFound : .other, reason)
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            guard let socketAddress = address.pointee.ai_addr else { continue }
            let bytes = UnsafeRawBufferPointer(start: socketAddress, count: Int(address.pointee.ai_addrlen))
            if let parsed = SocketAddress(bytes: Array(bytes)), !addresses.contains(parsed) { addresses.append(parsed) }
        }
        guard !addresses.isEmpty else { throw ResolutionFailure(.noAddress, "no address") }
        return addresses
    }

    /// Opens a non-blocking socket, binds it as `binding` says and turns on `keepAlive` (TCP only), and starts
    /// connecting it to `address`.
    ///
    /// - Returns: The descriptor, and whether it is connected already (otherwise it becomes writable when the
    ///   attempt ends, and ``connectionError(_:)`` says how).
    /// - Throws: `Failure.system` when the socket cannot be made or set up, or the attempt fails at once.
    static func startConnecting(
        to address: SocketAddress, binding: LocalBinding? = nil, keepAlive: TCPKeepAlive? = nil
    ) throws(Failure) -> (descriptor: Int32, isConnected: Bool) {
        let descriptor = socket(address.systemFamily, streamType, 0)
        guard descriptor >= 0 else { throw Failure.system(currentError()) }
        if address.family != .unix {
            do throws(POSIXError) {
                if let binding { try SocketOptionCalls.bind(descriptor, to: binding, family: address.family) }
                if let keepAlive { try SocketOptionCalls.enable(keepAlive, on: descriptor) }
            } catch {
                close(descriptor)
                throw Failure.system(error)
            }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL, 0) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        var one: Int32 = 1
        let size = socklen_t(MemoryLayout<Int32>.size)
        if address.family != .unix { setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, size) }
        #if canImport(Darwin)
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, size)
        #endif
        let status = address.withSystemAddress { pointer, length in systemConnect(descriptor, pointer, length) }
        if status == 0 { return (descriptor, true) }
        let error = errno
        if error == EINPROGRESS || error == EINTR { return (descriptor, false) }
        close(descriptor)
        throw Failure.system(POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO))
    }

    /// How a connection attempt that made the socket writable ended: nil when it connected.
    static func connectionError(_ descriptor: Int32) -> POSIXError? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return currentError() }
        return error == 0 ? nil : POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO)
    }

    /// Whether the descriptor has something to read (or the peer closed it), checked without waiting.
    static func isReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// Closes a descriptor.
    static func close(_ descriptor: Int32) {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }

    /// The numeric address and port of a socket address (`127.0.0.1:8080`, `[::1]:8443`); nil when it has none.
    static func describe(_ bytes: [UInt8]) -> String? {
        var host = [CChar](repeating: 0, count: 1025)  // NI_MAXHOST
        var service = [CChar](repeating: 0, count: 32)  // NI_MAXSERV
        let status = bytes.withUnsafeBytes { raw -> Int32 in
            guard let base = raw.baseAddress else { return -1 }
            return getnameinfo(
                base.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count), &host, socklen_t(host.count),
                &service, socklen_t(service.count), NI_NUMERICHOST | NI_NUMERICSERV)
        }
        guard status == 0 else { return nil }
        let name = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let port = String(decoding: service.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
    }

    /// This side's address of a connected socket, as ``describe(_:)`` writes it.
    static func localAddress(of descriptor: Int32) -> String? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        let bytes = withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) }
        return describe(bytes)
    }

    private static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    private static func systemConnect(
        _ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
    ) -> Int32 {
        #if canImport(Glibc)
        Glibc.connect(descriptor, address, length)
        #elseif canImport(Musl)
        Musl.connect(descriptor, address, length)
        #else
        Darwin.connect(descriptor, address, length)
        #endif
    }
}
