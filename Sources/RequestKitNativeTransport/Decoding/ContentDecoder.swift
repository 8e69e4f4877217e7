import CZlib
import Foundation

/// Undoes a response's `Content-Encoding` with the system zlib, piece by piece as the body arrives, so that a
/// compressed body never reaches the caller as if it were plain: `gzip` and `x-gzip`, and `deflate` (zlib-wrapped,
/// or raw as some servers send it, told apart by the first two bytes); on Linux also `br` (the system libbrotlidec)
/// and `zstd` (the system libzstd). Any other coding is an error rather than bytes the caller cannot read.
///
/// Two guards bound what a small compressed body can make the client hold (a "gzip bomb"): the decoded total
/// (`maxBytes`), and its ratio to the bytes received (`maxRatio`, once past `ratioAllowance` bytes). Inflating
/// stops as soon as either is passed, so at most one 64 KiB block is produced beyond them.
///
/// Used by one thread at a time: the one reading the response.
final class ContentDecoder {
    private let stages: [any ContentDecodingStage]
    private let maxBytes: Int
    private let maxRatio: Int
    private let ratioAllowance: Int
    private var receivedBytes = 0
    private var producedBytes = 0

    /// A decoder for the codings of a `Content-Encoding` header, in the order they were applied; `nil` when
    /// there is nothing to undo.
    ///
    /// - Parameters:
    ///   - codings: The codings, in the order they were applied.
    ///   - maxBytes: The most decoded bytes.
    ///   - maxRatio: How many times the bytes received the decoded bytes may be, once past `ratioAllowance`.
    ///   - ratioAllowance: The decoded bytes allowed whatever the ratio.
    /// - Throws: ``HTTP1ParseError`` for a coding not in ``supportedCodings``.
    init?(
        codings: [String], maxBytes: Int, maxRatio: Int = .max, ratioAllowance: Int = 1 << 20
    ) throws(HTTP1ParseError) {
        var stages: [any ContentDecodingStage] = []
        for coding in codings.reversed() where coding != "identity" {
            guard let stage = try Self.stage(for: coding) else {
                throw HTTP1ParseError.unsupportedContentEncoding(coding)
            }
            stages.append(stage)
        }
        if stages.isEmpty { return nil }
        self.stages = stages
        self.maxBytes = max(0, maxBytes)
        self.maxRatio = max(1, maxRatio)
        self.ratioAllowance = max(0, ratioAllowance)
    }

    /// The codings this platform decodes, in the order `Accept-Encoding` offers them.
    static var supportedCodings: [String] {
        var codings = ["gzip", "deflate"]
        #if canImport(CBrotli)
        codings.append("br")
        #endif
        #if canImport(CZstd)
        codings.append("zstd")
        #endif
        return codings
    }

    /// The `Accept-Encoding` value offering ``supportedCodings``.
    static let acceptEncoding = supportedCodings.joined(separator: ", ")

    /// The first coding of `codings` (other than `identity`) that this platform does not decode.
    static func unsupportedCoding(in codings: [String]) -> String? {
        codings.first { $0 != "identity" && $0 != "x-gzip" && !supportedCodings.contains($0) }
    }

    private static func stage(for coding: String) throws(HTTP1ParseError) -> (any ContentDecodingStage)? {
        switch coding {
        case "gzip", "x-gzip": return Inflater(format: .gzip)
        case "deflate": return Inflater(format: .deflate)
        #if canImport(CBrotli)
        case "br": return try BrotliDecodingStage()
        #endif
        #if canImport(CZstd)
        case "zstd": return try ZstdDecodingStage()
        #endif
        default: return nil
        }
    }

    /// Decodes the next piece of the body.
    ///
    /// - Throws: ``HTTP1ParseError`` for corrupt data, a decoded body over the limit
    ///   (``HTTP1ParseError/bodyTooLarge``) or one that expands too much
    ///   (``HTTP1ParseError/decompressionRatioExceeded``).
    func decode(_ piece: Data) throws(HTTP1ParseError) -> Data {
        receivedBytes += piece.count
        let (product, overflow) = receivedBytes.multipliedReportingOverflow(by: maxRatio)
        let ratioBound = overflow ? Int.max : max(ratioAllowance, product)
        let isRatioTighter = ratioBound < maxBytes
        let limit = min(maxBytes, ratioBound) - producedBytes
        var data = piece
        do {
            for stage in stages {
                data = try stage.decode(data, limit: limit)
            }
        } catch {
            throw error == .bodyTooLarge && isRatioTighter ? .decompressionRatioExceeded : error
        }
        guard data.count <= limit else { throw isRatioTighter ? .decompressionRatioExceeded : .bodyTooLarge }
        producedBytes += data.count
        return data
    }

    /// Checks that every compressed stream that started also ended.
    ///
    /// - Throws: ``HTTP1ParseError`` when the body stopped in the middle of a compressed stream.
    func finish() throws(HTTP1ParseError) {
        for stage in stages where stage.hasStarted && !stage.isFinished {
            throw .truncatedCompressedBody
        }
    }
}

/// One stage of undoing a `Content-Encoding`: a decompression stream fed the body piece by piece.
protocol ContentDecodingStage: AnyObject {
    /// Whether any input has reached the stream.
    var hasStarted: Bool { get }
    /// Whether the stream reached its end.
    var isFinished: Bool { get }
    /// Decodes the next piece, producing at most one 64 KiB block beyond `limit` before it throws
    /// ``HTTP1ParseError/bodyTooLarge``.
    func decode(_ input: Data, limit: Int) throws(HTTP1ParseError) -> Data
}

/// One zlib inflate stream, at a fixed address (zlib keeps a pointer back to it).
private final class Inflater: ContentDecodingStage {
    enum Format { case gzip, deflate }

    private let format: Format
    private let stream: UnsafeMutablePointer<z_stream>
    private var isInitialized = false
    private(set) var hasStarted = false
    private(set) var isFinished = false
    private var output = [UInt8](repeating: 0, count: 64 * 1024)

    init(format: Format) {
        self.format = format
        stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
    }

    deinit {
        if isInitialized { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    func decode(_ input: Data, limit: Int) throws(HTTP1ParseError) -> Data {
        if input.isEmpty || isFinished { return Data() }
        if !isInitialized { try start(firstBytes: input) }
        hasStarted = true
        var produced = Data()
        var status: Int32 = Z_OK
        input.withUnsafeBytes { raw in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: raw.bindMemory(to: Bytef.self).baseAddress)
            stream.pointee.avail_in = uInt(raw.count)
            repeat {
                output.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = uInt(buffer.count)
                    status = CZlib.inflate(stream, Z_NO_FLUSH)
                    let count = buffer.count - Int(stream.pointee.avail_out)
                    if count > 0, let base = buffer.baseAddress { produced.append(base, count: count) }
                }
            } while status == Z_OK && produced.count <= limit
                && (stream.pointee.avail_in > 0 || stream.pointee.avail_out == 0)
            stream.pointee.next_in = nil
        }
        if produced.count > limit { throw .bodyTooLarge }
        switch status {
        case Z_STREAM_END: isFinished = true
        case Z_OK, Z_BUF_ERROR: break
        default: throw .corruptCompressedBody
        }
        return produced
    }

    private func start(firstBytes: Data) throws(HTTP1ParseError) {
        let windowBits: Int32
        switch format {
        case .gzip:
            windowBits = 15 + 16
        case .deflate:
            // A zlib header is a method byte with deflate in its low nibble and a check making it a multiple of 31.
            let bytes = Array(firstBytes.prefix(2))
            let isZlib = bytes.count == 2 && bytes[0] & 0x0F == 8 && (Int(bytes[0]) << 8 | Int(bytes[1])) % 31 == 0
            windowBits = isZlib ? 15 : -15
        }
        guard inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw HTTP1ParseError("could not start zlib")
        }
        isInitialized = true
    }
}
