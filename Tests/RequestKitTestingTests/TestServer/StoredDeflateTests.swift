import Foundation
import RequestKitTestSupport
import Testing

@testable import RequestKitTesting

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Stored-block gzip and deflate encoding", .wallClock)
struct StoredDeflateTests {
    private func hex(_ data: Data) -> String {
        data.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    @Test("CRC-32 and Adler-32 match their standard check values")
    func checksums() {
        #expect(StoredDeflate.crc32(Data("123456789".utf8)) == 0xCBF4_3926)
        #expect(StoredDeflate.adler32(Data("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(StoredDeflate.crc32(Data()) == 0)
        #expect(StoredDeflate.adler32(Data()) == 1)
    }

    @Test("gzip and zlib output for a short message is exactly what zlib-compatible decoders expect")
    func exactBytes() {
        #expect(
            hex(StoredDeflate.gzip(Data("hello".utf8))) == "1f8b08000000000000ff010500faff68656c6c6f86a6103605000000")
        #expect(hex(StoredDeflate.zlib(Data("hello".utf8))) == "7801010500faff68656c6c6f062c0215")
        #expect(hex(StoredDeflate.deflate(Data())) == "010000ffff")
    }

    @Test("Bodies over 65,535 bytes are split into stored blocks with only the last marked final")
    func multipleBlocks() {
        let data = TestPayload.randomBytes(count: 70_000, seed: 9)
        let deflated = StoredDeflate.deflate(data)
        #expect(deflated.count == 70_000 + 2 * 5)
        #expect(Array(deflated.prefix(5)) == [0x00, 0xFF, 0xFF, 0x00, 0x00])
        let second = deflated.index(deflated.startIndex, offsetBy: 5 + 65_535)
        #expect(Array(deflated[second..<(second + 5)]) == [0x01, 0x71, 0x11, 0x8E, 0xEE])
        #expect(deflated[(second + 5)...] == data[65_535...])
    }

    @Test("/gzip and /deflate send Content-Encoding and bodies that URLSession decodes transparently")
    func wire() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: server.port)
        try await connection.send("GET /gzip HTTP/1.1\r\nHost: h\r\n\r\n")
        let raw = try await connection.readResponse()
        #expect(raw.header("Content-Encoding") == "gzip")
        #expect(Array(raw.body.prefix(3)) == [0x1F, 0x8B, 0x08])

        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let (gzipped, _) = try await session.data(from: server.url("/gzip"))
        #expect(String(decoding: gzipped, as: UTF8.self).contains(#""gzipped":true"#))
        let (deflated, _) = try await session.data(from: server.url("/deflate"))
        #expect(String(decoding: deflated, as: UTF8.self).contains(#""deflated":true"#))
    }
}
