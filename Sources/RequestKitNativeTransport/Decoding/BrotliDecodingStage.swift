#if canImport(CBrotli)
import CBrotli
import Foundation

/// One brotli stream (RFC 7932, `Content-Encoding: br`), decoded by the system libbrotlidec. Its window is at most
/// 16 MiB (the large-window extension stays off), so a stream cannot make the decoder hold more than that.
final class BrotliDecodingStage: ContentDecodingStage {
    private let state: OpaquePointer
    private(set) var hasStarted = false
    private(set) var isFinished = false
    private var output = [UInt8](repeating: 0, count: 64 * 1024)

    init() throws(HTTP1ParseError) {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else {
            throw HTTP1ParseError("could not start brotli")
        }
        self.state = state
    }

    deinit { BrotliDecoderDestroyInstance(state) }

    func decode(_ input: Data, limit: Int) throws(HTTP1ParseError) -> Data {
        if input.isEmpty { return Data() }
        // A brotli stream says where it ends: bytes after that end are not part of the body.
        if isFinished { throw .corruptCompressedBody }
        hasStarted = true
        var produced = Data()
        var result = BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT
        var unread = 0
        input.withUnsafeBytes { raw in
            var nextIn = raw.bindMemory(to: UInt8.self).baseAddress.map { UnsafePointer($0) }
            var availableIn = raw.count
            repeat {
                output.withUnsafeMutableBufferPointer { buffer in
                    var nextOut = buffer.baseAddress
                    var availableOut = buffer.count
                    result = BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                    let count = buffer.count - availableOut
                    if count > 0, let base = buffer.baseAddress { produced.append(base, count: count) }
                }
            } while result == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT && produced.count <= limit
            unread = availableIn
        }
        if produced.count > limit { throw .bodyTooLarge }
        switch result {
        case BROTLI_DECODER_RESULT_SUCCESS:
            isFinished = true
            if unread > 0 { throw .corruptCompressedBody }
        case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT:
            break
        default:
            throw .corruptCompressedBody
        }
        return produced
    }
}
#endif
