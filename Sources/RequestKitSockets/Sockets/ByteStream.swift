import Foundation
import RequestKitModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A non-blocking, ordered byte stream over one socket descriptor: plain TCP, or TLS layered on top of it.
///
/// This is the boundary between the native transport's HTTP/1.1 code and the bytes on the wire. The HTTP code
/// reads and writes plain bytes through it and never learns whether they are encrypted; an event loop waits for
/// the readiness a call asked for (``ByteStreamResult/wouldBlock(_:)``) and calls again. No call blocks.
///
/// ```swift
/// switch try stream.read(into: buffer) {
/// case .transferred(let count): consume(buffer.prefix(count))
/// case .endOfStream: finish()
/// case .wouldBlock(let interest): waitUntil(stream.descriptor, is: interest)
/// }
/// ```
package protocol ByteStream: AnyObject {
    /// The socket descriptor the stream runs on, for registering readiness interest; -1 once closed.
    var descriptor: Int32 { get }

    /// Moves the stream towards being ready to carry data: a TLS handshake step, nothing for plain TCP.
    ///
    /// - Returns: `.transferred(0)` once the stream is ready; `.wouldBlock` with the readiness to wait for.
    /// - Throws: `POSIXError` for a failed system call, or a `RequestError` (a TLS handshake or verification
    ///   failure) that the transport reports as it is.
    func handshake() throws -> ByteStreamResult

    /// Reads up to `buffer.count` bytes.
    ///
    /// - Returns: `.transferred(n)` with `n > 0`, `.endOfStream` when the peer closed cleanly, or `.wouldBlock`.
    /// - Throws: as ``handshake()``.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> ByteStreamResult

    /// Writes up to `bytes.count` bytes.
    ///
    /// - Returns: `.transferred(n)` with `n > 0` (possibly fewer than given), or `.wouldBlock`.
    /// - Throws: as ``handshake()``.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> ByteStreamResult

    /// True when a ``read(into:)`` can return bytes without the descriptor becoming readable first (decrypted
    /// bytes a TLS layer already holds).
    var hasBufferedBytes: Bool { get }

    /// True when the socket has bytes to read, or its peer closed it, checked now without waiting: an idle
    /// connection asks before it carries a request, and a request being written asks whether the server answered
    /// early.
    var isReadableNow: Bool { get }

    /// True once ``read(into:)`` returned `.endOfStream` for a close that the stream's own protocol did not confirm
    /// (a TLS peer that closed TCP without its close notification): the bytes before it may have been cut short by
    /// anyone on the path. Always false for plain TCP, which has no such confirmation.
    var isEndUnconfirmed: Bool { get }

    /// Closes the stream and its descriptor (a TLS layer sends its close notification first, without waiting).
    /// Calling it again does nothing.
    func close()

    /// What the TLS handshake negotiated, once it is done; nil on a plain stream.
    var negotiatedTLS: RequestMetrics.TLS? { get }

    /// The application protocol the TLS handshake's ALPN chose (`"h2"`, `"http/1.1"`), once it is done; nil when
    /// the server chose none, and on a plain stream.
    var negotiatedApplicationProtocol: String? { get }
}

extension ByteStream {
    /// Whether the descriptor is readable now, asked of the system (`poll` with no wait).
    package var isReadableNow: Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) != 0
    }

    /// A plain stream negotiates nothing.
    package var negotiatedTLS: RequestMetrics.TLS? { nil }

    /// A plain stream negotiates no application protocol.
    package var negotiatedApplicationProtocol: String? { nil }
}
