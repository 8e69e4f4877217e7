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
enum LoopbackListener {
    /// A socket listening on 127.0.0.1 with `backlog` places in its accept queue, and its port.
    ///
    /// - Throws: `POSIXError` when the socket cannot be made, bound or set listening; nothing is left open then.
    static func open(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Darwin)
        let streamType = SOCK_STREAM
        #else
        let streamType = Int32(SOCK_STREAM.rawValue)
        #endif
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
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
}
