import CZlib
import Foundation

/// Compresses one end's outgoing messages for permessage-deflate (RFC 7692 §7.2.1) with the system zlib: raw
/// DEFLATE ended by a sync flush, whose final empty block (`00 00 FF FF`) is taken off. The stream is kept from
/// message to message (context takeover) unless the agreement says otherwise.
///
/// zlib cannot compress with a 256-byte window (8 bits): when 8 is agreed, messages go out in stored blocks, which
/// refer to no earlier bytes and so fit any window.
///
/// One zlib stream at a fixed address (zlib keeps a pointer back to it), used by one thread at a time.
package final class WebSocketDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool

    /// A compressor with a window of `maxWindowBits` (8 to 15); nil when zlib cannot start one.
    package init?(maxWindowBits: Int, noContextTakeover: Bool) {
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        self.noContextTakeover = noContextTakeover
        let bits = Int32(min(15, max(9, maxWindowBits)))
        let level = maxWindowBits <= 8 ? Z_NO_COMPRESSION : Z_DEFAULT_COMPRESSION
        let status = deflateInit2_(
            stream, level, Z_DEFLATED, -bits, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            return nil
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// `message` compressed as one permessage-deflate payload; nil when zlib fails.
    package func compress(_ message: UnsafeRawBufferPointer) -> Data? {
        var output = Data(count: Int(deflateBound(stream, uLong(message.count))) + 16)
        var produced = 0
        var status: Int32 = Z_OK
        stream.pointee.next_in = UnsafeMutablePointer(mutating: message.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(message.count)
        repeat {
            if produced == output.count { output.count += 64 * 1024 }
            output.withUnsafeMutableBytes { buffer in
                let free = buffer.count - produced
                stream.pointee.next_out = buffer.baseAddress.map {
                    $0.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                }
                stream.pointee.avail_out = uInt(free)
                status = deflate(stream, Z_SYNC_FLUSH)
                produced += free - Int(stream.pointee.avail_out)
            }
        } while status == Z_OK && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        guard status == Z_OK || status == Z_BUF_ERROR, stream.pointee.avail_in == 0, produced >= 4 else { return nil }
        output.count = produced
        guard output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) else { return nil }
        output.removeLast(4)
        if noContextTakeover, deflateReset(stream) != Z_OK { return nil }
        return output
    }
}
