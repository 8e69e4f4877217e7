#if canImport(CZstd)
import CZstd
import Foundation

/// One zstd stream (RFC 8878, `Content-Encoding: zstd`) of one or more frames, decoded by the system libzstd.
/// RFC 8878 §3.1.1.1.2 bounds an HTTP decoder's window to 8 MiB, so a frame asking for more is refused rather than
/// allowed to make the decoder hold up to the library's default of 128 MiB.
final class ZstdDecodingStage: ContentDecodingStage {
    private static let maxWindowLog: Int32 = 23

    private let stream: OpaquePointer
    private(set) var hasStarted = false
    /// Whether the last frame begun has ended: a body may hold several frames, one after another.
    private(set) var isFinished = false
    private var output = [UInt8](repeating: 0, count: 64 * 1024)

    init() throws(HTTP1ParseError) {
        guard let stream = ZSTD_createDStream() else { throw HTTP1ParseError("could not start zstd") }
        self.stream = stream
        let status = ZSTD_DCtx_setParameter(stream, ZSTD_d_windowLogMax, Self.maxWindowLog)
        if ZSTD_isError(status) != 0 {
            ZSTD_freeDStream(stream)
            throw HTTP1ParseError("could not start zstd")
        }
    }

    deinit { ZSTD_freeDStream(stream) }

    func decode(_ input: Data, limit: Int) throws(HTTP1ParseError) -> Data {
        if input.isEmpty { return Data() }
        hasStarted = true
        var produced = Data()
        var status = 0
        input.withUnsafeBytes { raw in
            var source = ZSTD_inBuffer(src: raw.baseAddress, size: raw.count, pos: 0)
            var filledOutput = false
            repeat {
                output.withUnsafeMutableBufferPointer { buffer in
                    var destination = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
                    status = ZSTD_decompressStream(stream, &destination, &source)
                    filledOutput = destination.pos == destination.size
                    if destination.pos > 0, let base = buffer.baseAddress {
                        produced.append(base, count: destination.pos)
                    }
                }
                // 0: a frame ended and all it holds is flushed; another frame may follow.
                isFinished = ZSTD_isError(status) == 0 && status == 0
            } while ZSTD_isError(status) == 0 && produced.count <= limit && (source.pos < source.size || filledOutput)
        }
        if produced.count > limit { throw .bodyTooLarge }
        if ZSTD_isError(status) != 0 { throw .corruptCompressedBody }
        return produced
    }
}
#endif
