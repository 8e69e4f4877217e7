import Foundation
import RequestKitTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket on 127.0.0.1 that never accepts, with its accept queue filled by a few pending connections:
/// the kernel then drops new SYNs, so a further connection attempt neither succeeds nor fails until it times out.
final class FullBacklogListener {
    private var descriptors: [Int32] = []
    /// The port that does not answer.
    private(set) var port = 0

    init() throws {
        #if canImport(Darwin)
        let streamType = SOCK_STREAM
        #else
        let streamType = Int32(SOCK_STREAM.rawValue)
        #endif
        let (listener, listenerPort) = try LoopbackListener.open(backlog: 0)
        descriptors.append(listener)
        port = listenerPort
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(listenerPort).bigEndian)
        for _ in 0..<4 {
            let filler = socket(AF_INET, streamType, 0)
            guard filler >= 0 else { continue }
            descriptors.append(filler)
            _ = fcntl(filler, F_SETFL, fcntl(filler, F_GETFL, 0) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    connect(filler, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// Closes the listener and the pending connections.
    func close() {
        for descriptor in descriptors {
            #if canImport(Darwin)
            _ = Darwin.close(descriptor)
            #elseif canImport(Musl)
            _ = Musl.close(descriptor)
            #else
            _ = Glibc.close(descriptor)
            #endif
        }
        descriptors = []
    }
}
