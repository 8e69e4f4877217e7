import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening socket on 127.0.0.1 with a long accept queue that it never accepts from: connections open (the
/// kernel completes their handshakes), requests are sent, and no byte ever comes back. It needs no thread, so it
/// does not change the process's thread count.
package final class SilentListener {
    private var descriptor: Int32 = -1
    /// The port that never answers.
    package private(set) var port = 0

    package init(backlog: Int32 = 1024) throws {
        (descriptor, port) = try LoopbackListener.open(backlog: backlog)
    }

    /// How many connections wait in the accept queue (Linux; -1 elsewhere): read with one system call, so a test
    /// can poll it often.
    package var pendingConnections: Int {
        #if canImport(Glibc)
        var info = tcp_info()
        var length = socklen_t(MemoryLayout<tcp_info>.size)
        // For a listening socket, Linux reports the accept queue's length as `tcpi_unacked`.
        guard getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, &info, &length) == 0 else { return -1 }
        return Int(info.tcpi_unacked)
        #else
        return -1
        #endif
    }

    /// Closes the listener, which resets the connections still in its queue.
    package func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
        descriptor = -1
    }

    deinit { close() }
}
