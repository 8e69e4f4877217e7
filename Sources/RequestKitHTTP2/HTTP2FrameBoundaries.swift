/// Where the frames begin and end in the bytes a server sends, read from each frame's 9-byte header (RFC 9113,
/// 4.1): the 24-bit length of the payload that follows it. Reads may split frames anywhere; this counts across them.
///
/// ```swift
/// var frames = HTTP2FrameBoundaries()
/// let count = frames.bytesToFrameEnd(of: bytes, from: 0)   // up to the end of the first frame, or of the bytes
/// print(frames.isAtBoundary)                              // true when those bytes ended a frame
/// ```
struct HTTP2FrameBoundaries {
    /// The bytes of the current frame's header read so far (0 to 8; 9 completes it).
    private var headerRead = 0
    /// The current frame's payload length, once its header's first three bytes are read.
    private var length = 0
    /// The payload bytes still to come once the header is complete.
    private var payloadLeft = 0
    /// The current frame's type, once its header's fourth byte is read.
    private var type: UInt8 = 0

    /// Whether the bytes so far end exactly at the end of a frame.
    private(set) var isAtBoundary = true

    /// How many of `bytes`, from `offset`, belong to the current frame (its end, or the end of the bytes when it
    /// goes on past them); the count moves past them.
    mutating func bytesToFrameEnd(of bytes: UnsafeRawBufferPointer, from offset: Int) -> Int {
        var index = offset
        isAtBoundary = false
        while index < bytes.count, headerRead < 9 {
            if headerRead < 3 { length = length << 8 | Int(bytes[index]) }
            if headerRead == 3 { type = bytes[index] }
            headerRead += 1
            index += 1
            if headerRead == 9 { payloadLeft = length }
        }
        if headerRead == 9 {
            let taken = min(payloadLeft, bytes.count - index)
            payloadLeft -= taken
            index += taken
            if payloadLeft == 0 {
                headerRead = 0
                length = 0
                isAtBoundary = true
            }
        }
        return index - offset
    }

    /// Whether the bytes of the current frame, not yet complete, should reach nghttp2 only once it is: while its
    /// header is incomplete, and for a header block (HEADERS, PUSH_PROMISE, CONTINUATION) no larger than the
    /// 16,384 bytes a frame may have. nghttp2 decodes a header block as it arrives, and a broken one is a stream's
    /// error or the connection's depending on where the reads split it; whole, it is always the same.
    ///
    /// ```swift
    /// if !frames.isAtBoundary, frames.holdsWholeFrame { held.append(contentsOf: chunk) }
    /// ```
    var holdsWholeFrame: Bool {
        headerRead < 9 || ((type == 1 || type == 5 || type == 9) && length <= 16_384)
    }
}
