import Foundation
import RequestKitDSL
import Testing

@testable import RequestKitNativeTransport

#if canImport(CBrotli) && canImport(CZstd)
@Suite("ContentDecoder: br and zstd, piece by piece, without sockets")
struct ContentDecoderTests {
    static let plain = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 3) })

    static func decoder(_ coding: String, maxBytes: Int = .max, maxRatio: Int = .max) throws -> ContentDecoder {
        try #require(try ContentDecoder(codings: [coding], maxBytes: maxBytes, maxRatio: maxRatio))
    }

    @Test("A body fed one byte at a time decodes to the same bytes", arguments: [ContentCoding.brotli, .zstd])
    func byteByByte(_ coding: ContentCoding) throws {
        let compressed = try ContentCompressor.compress(Self.plain, with: coding)
        let decoder = try Self.decoder(coding.name)
        var decoded = Data()
        for byte in compressed { decoded += try decoder.decode(Data([byte])) }
        try decoder.finish()
        #expect(decoded == Self.plain)
    }

    @Test("Codings applied in turn are undone in reverse: gzip, then br, then zstd")
    func stacked() throws {
        let once = try ContentCompressor.compress(Self.plain, with: .gzip)
        let twice = try ContentCompressor.compress(once, with: .brotli)
        let thrice = try ContentCompressor.compress(twice, with: .zstd)
        let decoder = try #require(
            try ContentDecoder(codings: ["gzip", "br", "zstd"], maxBytes: .max, maxRatio: .max))
        let decoded = try decoder.decode(thrice)
        try decoder.finish()
        #expect(decoded == Self.plain)
    }

    @Test("zstd frames one after another decode as one body")
    func zstdFrames() throws {
        let first = try ContentCompressor.compress(Data("first ".utf8), with: .zstd)
        let second = try ContentCompressor.compress(Data("second".utf8), with: .zstd)
        let decoder = try Self.decoder("zstd")
        let decoded = try decoder.decode(first + second)
        try decoder.finish()
        #expect(decoded == Data("first second".utf8))
    }

    @Test("Bytes after the end of a brotli stream are corrupt, not ignored")
    func brotliTrailingBytes() throws {
        let compressed = try ContentCompressor.compress(Data("hello".utf8), with: .brotli)
        let decoder = try Self.decoder("br")
        #expect(throws: HTTP1ParseError.corruptCompressedBody) { try decoder.decode(compressed + Data("x".utf8)) }
    }

    @Test("A stream cut short fails at finish", arguments: [ContentCoding.brotli, .zstd])
    func truncated(_ coding: ContentCoding) throws {
        let compressed = try ContentCompressor.compress(Self.plain, with: coding)
        let decoder = try Self.decoder(coding.name)
        _ = try decoder.decode(compressed.dropLast(3))
        #expect(throws: HTTP1ParseError.truncatedCompressedBody) { try decoder.finish() }
    }

    @Test("The ratio guard stops a br or zstd bomb once past the allowance", arguments: [ContentCoding.brotli, .zstd])
    func ratio(_ coding: ContentCoding) throws {
        let compressed = try ContentCompressor.compress(Data(count: 8 << 20), with: coding)
        #expect(compressed.count < 4096)
        let decoder = try #require(
            try ContentDecoder(
                codings: [coding.name], maxBytes: .max, maxRatio: 100, ratioAllowance: 1 << 20))
        #expect(throws: HTTP1ParseError.decompressionRatioExceeded) { try decoder.decode(compressed) }
    }

    @Test("The byte limit stops a br or zstd body that decodes past it", arguments: [ContentCoding.brotli, .zstd])
    func byteLimit(_ coding: ContentCoding) throws {
        let compressed = try ContentCompressor.compress(Self.plain, with: coding)
        let decoder = try Self.decoder(coding.name, maxBytes: 10_000)
        #expect(throws: HTTP1ParseError.bodyTooLarge) { try decoder.decode(compressed) }
    }

    @Test("The native transport offers and decodes exactly gzip, deflate, br and zstd")
    func supported() throws {
        #expect(ContentDecoder.acceptEncoding == "gzip, deflate, br, zstd")
        #expect(ContentDecoder.unsupportedCoding(in: ["identity", "x-gzip", "br", "zstd"]) == nil)
        #expect(ContentDecoder.unsupportedCoding(in: ["gzip", "compress"]) == "compress")
        #expect(throws: HTTP1ParseError("unsupported Content-Encoding compress")) {
            try ContentDecoder(codings: ["compress"], maxBytes: .max)
        }
    }

    @Test(
        "Compressing with each coding round-trips through the decoder",
        arguments: [
            ContentCoding.gzip, .deflate, .brotli, .zstd,
        ])
    func roundTrip(_ coding: ContentCoding) throws {
        #expect(coding.isAvailable)
        let compressed = try ContentCompressor.compress(Self.plain, with: coding)
        #expect(compressed.count < Self.plain.count / 2)
        let decoder = try Self.decoder(coding.name)
        #expect(try decoder.decode(compressed) == Self.plain)
        try decoder.finish()
    }
}
#endif
