import CZlib
import Foundation

#if canImport(CBrotli)
import CBrotli
#endif
#if canImport(CZstd)
import CZstd
#endif

/// Compresses bytes whole with a ``ContentCoding``, through the system libraries: for request bodies, and for the
/// test server's compressed responses.
package enum ContentCompressor {
    /// Why bytes could not be compressed.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// Whether `coding` can be compressed on this platform.
    static func isAvailable(_ coding: ContentCoding) -> Bool {
        switch coding {
        case .gzip, .deflate: return true
        #if canImport(CBrotli)
        case .brotli: return true
        #endif
        #if canImport(CZstd)
        case .zstd: return true
        #endif
        default: return false
        }
    }

    /// `data` compressed with `coding`, in one piece.
    ///
    /// - Throws: ``Failure`` when the coding is not available here or its library fails.
    package static func compress(_ data: Data, with coding: ContentCoding) throws(Failure) -> Data {
        switch coding {
        case .gzip: return try zlib(data, windowBits: 15 + 16)
        case .deflate: return try zlib(data, windowBits: 15)
        #if canImport(CBrotli)
        case .brotli: return try brotli(data)
        #endif
        #if canImport(CZstd)
        case .zstd: return try zstd(data)
        #endif
        default: throw Failure(description: "\(coding.name) compression is not available on this platform")
        }
    }

    private static func zlib(_ data: Data, windowBits: Int32) throws(Failure) -> Data {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        defer {
            stream.deinitialize(count: 1)
            stream.deallocate()
        }
        let started = deflateInit2_(
            stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard started == Z_OK else { throw Failure(description: "zlib could not start compressing") }
        defer { deflateEnd(stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, uLong(data.count))))
        var status: Int32 = Z_OK
        data.withUnsafeBytes { raw in
            output.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: raw.bindMemory(to: Bytef.self).baseAddress)
                stream.pointee.avail_in = uInt(raw.count)
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = uInt(buffer.count)
                status = deflate(stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw Failure(description: "zlib could not compress the body") }
        return Data(output.prefix(Int(stream.pointee.total_out)))
    }

    #if canImport(CBrotli)
    private static func brotli(_ data: Data) throws(Failure) -> Data {
        // Quality 5 of 11: most of the size gain for a small part of the time of the slowest levels.
        var output = [UInt8](repeating: 0, count: BrotliEncoderMaxCompressedSize(data.count))
        var size = output.count
        let succeeded = data.withUnsafeBytes { raw in
            output.withUnsafeMutableBufferPointer { buffer in
                BrotliEncoderCompress(
                    5, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, raw.count,
                    raw.bindMemory(to: UInt8.self).baseAddress, &size, buffer.baseAddress)
            }
        }
        guard succeeded == BROTLI_TRUE, !output.isEmpty else {
            throw Failure(description: "brotli could not compress the body")
        }
        return Data(output.prefix(size))
    }
    #endif

    #if canImport(CZstd)
    private static func zstd(_ data: Data) throws(Failure) -> Data {
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(data.count))
        let size = data.withUnsafeBytes { raw in
            output.withUnsafeMutableBufferPointer { buffer in
                ZSTD_compress(buffer.baseAddress, buffer.count, raw.baseAddress, raw.count, 3)
            }
        }
        guard ZSTD_isError(size) == 0 else { throw Failure(description: "zstd could not compress the body") }
        return Data(output.prefix(size))
    }
    #endif
}
