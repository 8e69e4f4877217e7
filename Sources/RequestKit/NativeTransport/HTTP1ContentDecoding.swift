import CZlib
import Foundation

/// Undoes a response's `Content-Encoding` with the system zlib, so that a compressed body never reaches the
/// caller as if it were plain: `gzip` and `x-gzip`, and `deflate` (zlib-wrapped, or raw as some servers send
/// it). Any other coding is an error rather than bytes the caller cannot read.
enum HTTP1ContentDecoding {
    /// Decodes `body` sent with the `Content-Encoding` codings in `codings` (outermost last).
    ///
    /// - Parameters:
    ///   - body: The body as received.
    ///   - codings: The lowercased codings, in the order they were applied.
    ///   - maxBytes: The largest decoded body accepted.
    /// - Returns: The decoded body.
    /// - Throws: ``HTTP1ParseError`` for an unknown coding, corrupt data or a body over `maxBytes`.
    static func decode(_ body: Data, codings: [String], maxBytes: Int) throws(HTTP1ParseError) -> Data {
        var data = body
        for coding in codings.reversed() {
            switch coding {
            case "identity":
                continue
            case "gzip", "x-gzip":
                data = try inflate(data, windowBits: 15 + 16, maxBytes: maxBytes)
            case "deflate":
                do {
                    data = try inflate(data, windowBits: 15, maxBytes: maxBytes)
                } catch let error where error != .bodyTooLarge {
                    data = try inflate(data, windowBits: -15, maxBytes: maxBytes)
                }
            default:
                throw HTTP1ParseError("unsupported Content-Encoding \(coding)")
            }
        }
        return data
    }

    private static func inflate(_ input: Data, windowBits: Int32, maxBytes: Int) throws(HTTP1ParseError) -> Data {
        if input.isEmpty { return input }
        var stream = z_stream()
        guard inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw HTTP1ParseError("could not start zlib")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        input.withUnsafeBytes { raw in
            stream.next_in = UnsafeMutablePointer(mutating: raw.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(raw.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    let produced = buffer.count - Int(stream.avail_out)
                    if produced > 0, let base = buffer.baseAddress { output.append(base, count: produced) }
                }
            } while status == Z_OK && output.count <= maxBytes && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if output.count > maxBytes { throw .bodyTooLarge }
        guard status == Z_STREAM_END else { throw HTTP1ParseError("corrupt compressed body") }
        return output
    }
}
