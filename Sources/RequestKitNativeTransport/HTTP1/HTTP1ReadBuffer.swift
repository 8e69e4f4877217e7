import Foundation
import RequestKitSockets

/// The bytes a connection has read and not yet parsed, in one buffer allocated for the connection's life: reads fill
/// its free end (``fill(from:)``), parsers take from its unread part (``unread``, ``consume(_:)``).
///
/// ```swift
/// var buffer = HTTP1ReadBuffer(capacity: 64 * 1024)
/// if case .bytes(let count) = try buffer.fill(from: stream) { print(count, buffer.unread.count) }
/// buffer.consume(buffer.unread.count)
/// ```
struct HTTP1ReadBuffer: ~Copyable {
    /// What a read brought.
    enum Fill: Equatable {
        /// `count` bytes (more than zero).
        case bytes(Int)
        /// The peer closed the stream.
        case end
        /// Nothing now: wait for this readiness.
        case wouldBlock(ByteStreamResult.Interest)
    }

    private let storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    /// A buffer of `capacity` bytes (at least 4 KiB).
    init(capacity: Int) {
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(capacity, 4096), alignment: 16)
    }

    deinit { storage.deallocate() }

    /// The bytes read and not yet consumed.
    var unread: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[start..<end]) }

    /// Whether bytes wait to be parsed.
    var hasUnread: Bool { end > start }

    /// Whether the buffer is full of unread bytes: nothing more can be read into it.
    var isFull: Bool { start == 0 && end == storage.count }

    /// Marks `count` unread bytes as parsed.
    mutating func consume(_ count: Int) {
        start = min(start + count, end)
    }

    /// Forgets every byte.
    mutating func reset() {
        start = 0
        end = 0
    }

    /// Reads what `stream` has into the free end, after moving the unread bytes to the front.
    ///
    /// - Throws: What the stream throws.
    mutating func fill(from stream: any ByteStream) throws -> Fill {
        compact()
        switch try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: storage[end...])) {
        case .transferred(let count):
            end += count
            return .bytes(count)
        case .endOfStream:
            return .end
        case .wouldBlock(let interest):
            return .wouldBlock(interest)
        }
    }

    /// Moves unread bytes to the start so that the free space after them is as large as possible.
    private mutating func compact() {
        if start == end {
            start = 0
            end = 0
        } else if start > 0, let base = storage.baseAddress {
            let count = end - start
            memmove(base, base + start, count)
            start = 0
            end = count
        }
    }
}
