/// What one non-blocking call on a ``ByteStream`` did.
///
/// ```swift
/// if case .wouldBlock(.readable) = try stream.read(into: buffer) { /* wait for the socket to be readable */ }
/// ```
package enum ByteStreamResult: Sendable, Equatable {
    /// Moved this many bytes (for ``ByteStream/handshake()``: 0, the stream is ready).
    case transferred(Int)
    /// The peer closed the stream cleanly; only reads return it.
    case endOfStream
    /// Nothing moved; call again once the descriptor has this readiness. A TLS read may wait for
    /// ``Interest/writable`` and a TLS write for ``Interest/readable``.
    case wouldBlock(Interest)

    /// The readiness a blocked call waits for.
    ///
    /// ```swift
    /// let interest: ByteStreamResult.Interest = .readable
    /// ```
    package enum Interest: Sendable, Equatable {
        /// The descriptor has bytes to read (or the peer closed it).
        case readable
        /// The descriptor can take more bytes.
        case writable
    }
}
