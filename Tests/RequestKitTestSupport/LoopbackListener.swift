import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the listening socket of the test servers that speak raw bytes: TCP on 127.0.0.1 and a free port.
///
/// ```swift
/// let (listener, port) = try LoopbackListener.open(backlog: 16)
/// let client = accept(listener, nil, nil)
/// ```
package enum LoopbackListener {
    /// A socket listening on 127.0.0.1 with `backlog` places in its accept queue, and its port.
    ///
    /// - Throws: `POSIXError` when the socket cannot be made, bound or set listening; nothing is left open then.
    package static func open(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        let descriptor = streamSocket()
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = address(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let isListening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && listen(descriptor, backlog) == 0
                    && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard isListening else {
            _ = close(descriptor)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// A new TCP socket over IPv4, or -1.
    package static func streamSocket() -> Int32 {
        #if canImport(Darwin)
        let streamType = SOCK_STREAM
        #elseif canImport(Glibc)
        let streamType = Int32(Glibc.SOCK_STREAM.rawValue)
        #else
        let streamType = Int32(SOCK_STREAM.rawValue)
        #endif
        return socket(AF_INET, streamType, 0)
    }

    /// 127.0.0.1 at `port` (0: the kernel picks one when the socket is bound).
    package static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        return address
    }
}
