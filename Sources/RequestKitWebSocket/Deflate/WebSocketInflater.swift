import CZlib
import Foundation

/// Inflates the other end's compressed messages for permessage-deflate (RFC 7692 §7.2.2) with the system zlib, a
/// piece at a time as the frames arrive, so that text can be checked as it inflates and a message that expands past
/// its limit stops at once: at most one 64 KiB block is produced beyond it.
///
/// A message's end adds the empty block its sender took off (`00 00 FF FF`). The stream is kept from message to
/// message unless the sender compresses each on its own. The window is at least 9 bits: zlib's compressor, which
/// most peers use, takes a 256-byte window for a 512-byte one.
///
/// One zlib stream at a fixed address (zlib keeps a pointer back to it), used by one thread at a time.
final class WebSocketInflater {
    /// How inflating a piece went.
    enum Outcome: Equatable {
        /// Inflated.
        case inflated
        /// The output passed the limit.
        case overLimit
        /// The data is not DEFLATE.
        case corrupt
    }

    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]
    private static let blockSize = 64 * 1024

    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool
    /// The stream reached a final block (BFINAL) in this message: the rest of the message is not inflated, and the
    /// stream starts afresh for the next.
    private var hasEnded = false

    /// A decompressor for a sender whose window is at most `maxWindowBits`; nil when zlib cannot start one.
    init?(maxWindowBits: Int, noContextTakeover: Bool) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        let bits = Int32(min(15, max(9, maxWindowBits)))
        guard inflateInit2_(stream, -bits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Inflates the next compressed bytes of a message onto `output`, stopping once `output` holds more than
    /// `limit` bytes.
    func inflate(_ input: UnsafeRawBufferPointer, into output: inout Data, limit: Int) -> Outcome {
        guard !hasEnded, input.count > 0 else { return .inflated }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(input.count)
        defer { stream.pointee.next_in = nil }
        var status: Int32 = Z_OK
        repeat {
            let start = output.count
            output.count += Self.blockSize
            output.withUnsafeMutableBytes { buffer in
                stream.pointee.next_out = buffer.baseAddress.map {
                    $0.advanced(by: start).assumingMemoryBound(to: Bytef.self)
                }
                stream.pointee.avail_out = uInt(Self.blockSize)
                status = CZlib.inflate(stream, Z_SYNC_FLUSH)
            }
            output.count -= Int(stream.pointee.avail_out)
            stream.pointee.next_out = nil
            if output.count > limit { return .overLimit }
        } while status == Z_OK && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
        switch status {
        case Z_STREAM_END:
            hasEnded = true
            return .inflated
        case Z_OK, Z_BUF_ERROR:
            return .inflated
        default:
            return .corrupt
        }
    }

    /// Ends a message: inflates the empty block its sender took off, and starts afresh when the sender compresses
    /// each message on its own (or ended its stream).
    func finishMessage(into output: inout Data, limit: Int) -> Outcome {
        let outcome = Self.tail.withUnsafeBytes { inflate($0, into: &output, limit: limit) }
        if noContextTakeover || hasEnded {
            hasEnded = false
            if inflateReset(stream) != Z_OK { return .corrupt }
        }
        return outcome
    }
}
