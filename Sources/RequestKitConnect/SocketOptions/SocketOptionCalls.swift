import Foundation
import RequestKitModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls that apply the connection options to a socket before it connects: binding the local address
/// or interface, and TCP keep-alive. The connector calls them on each attempt's socket.
///
/// ```swift
/// try SocketOptionCalls.bind(descriptor, to: binding, family: .ipv6)
/// try SocketOptionCalls.enable(keepAlive, on: descriptor)
/// ```
package enum SocketOptionCalls {
    /// Binds `descriptor`, of `family`, to the binding's interface and its address of that family.
    ///
    /// - Throws: `POSIXError` from `setsockopt` or `bind` (`ENODEV` for an unknown interface, `EADDRNOTAVAIL` for an
    ///   address this host does not have, `EPERM` without the right to bind to a device).
    package static func bind(
        _ descriptor: Int32, to binding: LocalBinding, family: SocketAddress.Family
    ) throws(POSIXError) {
        if let interface = binding.interface {
            try bind(descriptor, toInterface: interface, family: family)
        }
        if let address = binding.address(for: family) {
            let status = address.withSystemAddress { pointer, length in systemBind(descriptor, pointer, length) }
            guard status == 0 else { throw currentError() }
        }
    }

    /// Turns on keep-alive probes with the given timing; a part the system lacks is left at its default.
    ///
    /// - Throws: `POSIXError` when the system refuses an option.
    package static func enable(_ keepAlive: TCPKeepAlive, on descriptor: Int32) throws(POSIXError) {
        try set(descriptor, SOL_SOCKET, SO_KEEPALIVE, 1)
        let idle = Int32(clamping: max(keepAlive.idle.components.seconds, 1))
        let interval = Int32(clamping: max(keepAlive.interval.components.seconds, 1))
        #if canImport(Darwin)
        try set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPALIVE, idle)
        #else
        try set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, idle)
        #endif
        try set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, interval)
        try set(descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT, Int32(clamping: max(keepAlive.count, 1)))
    }

    /// Reads an integer socket option, for tests and diagnostics.
    package static func value(of descriptor: Int32, _ level: Int32, _ option: Int32) throws(POSIXError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, level, option, &value, &length) == 0 else { throw currentError() }
        return value
    }

    private static func bind(
        _ descriptor: Int32, toInterface interface: String, family: SocketAddress.Family
    ) throws(POSIXError) {
        #if canImport(Darwin)
        let index = if_nametoindex(interface)
        guard index != 0 else { throw POSIXError(.ENODEV) }
        if family == .ipv6 {
            try set(descriptor, Int32(IPPROTO_IPV6), IPV6_BOUND_IF, Int32(index))
        } else {
            try set(descriptor, Int32(IPPROTO_IP), IP_BOUND_IF, Int32(index))
        }
        #else
        guard if_nametoindex(interface) != 0 else { throw POSIXError(.ENODEV) }
        let name = Array(interface.utf8) + [0]
        let status = name.withUnsafeBytes { raw in
            setsockopt(descriptor, SOL_SOCKET, SO_BINDTODEVICE, raw.baseAddress, socklen_t(raw.count))
        }
        guard status == 0 else { throw currentError() }
        #endif
    }

    private static func set(_ descriptor: Int32, _ level: Int32, _ option: Int32, _ value: Int32) throws(POSIXError) {
        var value = value
        guard setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw currentError()
        }
    }

    private static func systemBind(
        _ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t
    ) -> Int32 {
        #if canImport(Glibc)
        Glibc.bind(descriptor, address, length)
        #elseif canImport(Musl)
        Musl.bind(descriptor, address, length)
        #else
        Darwin.bind(descriptor, address, length)
        #endif
    }

    private static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
