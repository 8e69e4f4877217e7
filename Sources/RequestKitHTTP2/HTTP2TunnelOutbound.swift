#if canImport(CNghttp2)
import Foundation

/// The outbound half of a tunnel opened with extended CONNECT (RFC 8441): the bytes given to it and not yet sent as
/// the stream's `DATA` frames, and whether its sender is done. The stream's flow control decides when they go; until
/// bytes arrive, nghttp2 waits for them (its data is deferred, and resumed when they come).
///
/// ```swift
/// var outbound = HTTP2TunnelOutbound()
/// outbound.append(Data([0x81, 0x85]))
/// let read = buffer.withUnsafeMutableBufferPointer { outbound.read(into: $0) }  // (2, isLast: false)
/// ```
struct HTTP2TunnelOutbound {
    /// The bytes given, of which the first `sent` went out already.
    private var bytes: [UInt8] = []
    private var sent = 0
    /// Whether the sender is done: the stream ends (`END_STREAM`) once the bytes are sent.
    var isFinished = false

    /// The bytes given and not yet sent.
    var unsentCount: Int { bytes.count - sent }

    /// Adds `data` after the bytes not yet sent.
    mutating func append(_ data: Data) {
        if sent == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            sent = 0
        } else if sent >= 65_536, sent * 2 >= bytes.count {
            // The sent bytes are dropped once they are most of the buffer: moving the rest costs less than they do.
            bytes.removeFirst(sent)
            sent = 0
        }
        bytes.append(contentsOf: data)
    }

    /// Copies the next bytes into `buffer`: their count and whether the stream ends with them, or nil when there are
    /// none yet and the sender is not done (the stream waits for more).
    mutating func read(into buffer: UnsafeMutableBufferPointer<UInt8>) -> (count: Int, isLast: Bool)? {
        let count = min(buffer.count, unsentCount)
        guard count > 0 || isFinished else { return nil }
        if count > 0, let destination = buffer.baseAddress {
            bytes.withUnsafeBufferPointer { source in
                guard let start = source.baseAddress else { return }
                destination.update(from: start + sent, count: count)
            }
            sent += count
        }
        return (count, isFinished && unsentCount == 0)
    }
}
#endif
