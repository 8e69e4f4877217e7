import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``ByteStream`` of plain TCP over one connected, non-blocking socket: reads and writes go straight to the
/// kernel, and there is no handshake.
///
/// ```swift
/// let stream = SocketByteStream(descriptor: connectedDescriptor)
/// let result = try bytes.withUnsafeBytes { try stream.write($0) }
/// ```
package final class SocketByteStream: ByteStream {
    package private(set) var descriptor: Int32

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    /// Takes ownership of a connected, non-blocking socket descriptor.
    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close()
    }

    package func handshake() throws -> ByteStreamResult {
        .transferred(0)
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .transferred(count) }
            if count == 0 { return buffer.isEmpty ? .transferred(0) : .endOfStream }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock(.readable) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult {
        while true {
            let count = send(descriptor, bytes.baseAddress, bytes.count, Self.sendFlags)
            if count >= 0 { return .transferred(count) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock(.writable) }
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    package var hasBufferedBytes: Bool { false }

    package var isEndUnconfirmed: Bool { false }

    /// Gives the descriptor up without closing it (to a stream layered on the same socket, such as TLS through a
    /// proxy's tunnel): the stream then reads and writes nothing more.
    ///
    /// - Returns: The descriptor, now the caller's to close.
    package func relinquish() -> Int32 {
        let owned = descriptor
        descriptor = -1
        return owned
    }

    package func close() {
        guard descriptor >= 0 else { return }
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Musl)
        _ = Musl.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
        descriptor = -1
    }
}
