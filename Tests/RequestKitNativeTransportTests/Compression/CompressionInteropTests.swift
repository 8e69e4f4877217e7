import Foundation
import RequestKitDSL
import RequestKitJSON
import RequestKitModel
import RequestKitNativeTransport
import RequestKitTestSupport
import RequestKitTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if os(Linux) && canImport(CBrotli) && canImport(CZstd)
/// br and zstd against other implementations: curl (built with brotli and zstd) decoding TestServer's output, and
/// nginx serving files compressed ahead of time with a fixed `Content-Encoding`, as sites serve `.br` and `.zst`
/// files (nginx-light has no brotli module, so nginx only labels them).
@Suite("Brotli and zstd against curl and nginx", .wallClock)
struct CompressionInteropTests {
    static let curl = "/usr/bin/curl"

    @Test(
        "curl --compressed decodes TestServer's br and zstd to the bytes RequestKit decodes",
        .enabled(if: FileManager.default.isExecutableFile(atPath: curl)))
    func curlDecodesOurs() async throws {
        let server = try TestServer()
        defer { server.stop() }
        for (route, coding) in [("brotli", "br"), ("zstd", "zstd")] {
            let url = server.url("/\(route)")
            let (termination, curled, _) = try await ChildProcess.run(
                Self.curl, ["--silent", "--compressed", "-H", "Accept-Encoding: \(coding)", url.absoluteString])
            #expect(termination == .exited(0), "\(coding)")
            let parsed = try Json(parsing: curled)
            #expect(parsed[route].bool == true, "\(coding)")
            #expect(parsed.headers["Accept-Encoding"].string == coding, "\(coding)")
            // The same document, apart from the request headers it echoes, decoded by RequestKit.
            let ours = try await Request {
                Url(url)
                Header.AcceptEncoding(coding)
                Using(NativeTransport.shared)
            }.json()
            #expect(ours[route].bool == true, "\(coding)")
            #expect(ours.url == parsed.url, "\(coding)")
            #expect(ours.args == parsed.args, "\(coding)")
        }
    }

    /// The nginx here serves HTTP/1.1 over plain TCP, which an h2c client cannot speak to.
    @Test(
        "Files nginx serves as br and zstd decode to the originals on every transport",
        .enabled(if: LocalNginx.isInstalled),
        arguments: WireTransport.all.filter { $0.http2 == nil })
    func nginxPrecompressed(_ transport: WireTransport) async throws {
        let nginx = try LocalNginx()
        defer { nginx.stop() }
        let original = Data((0..<300_000).map { UInt8(truncatingIfNeeded: ($0 * 31) % 251) })
        try ContentCompressor.compress(original, with: .brotli).write(to: nginx.root.appendingPathComponent("data.br"))
        try ContentCompressor.compress(original, with: .zstd).write(to: nginx.root.appendingPathComponent("data.zst"))
        try await nginx.start(
            directives: "access_log off;",
            locations: """
                location ~ \\.br$ { types { } default_type application/octet-stream; add_header Content-Encoding br; }
                location ~ \\.zst$ { types { } default_type application/octet-stream; add_header Content-Encoding zstd; }
                """)
        let base = nginx.base
        for (file, coding) in [("data.br", "br"), ("data.zst", "zstd")] {
            let response = try await Request {
                Url("\(base)/\(file)")
                Using(transport.transport)
            }.send()
            #expect(response.statusCode == 200, "\(file)")
            #expect(response.headers["Content-Encoding"] == coding, "\(file)")
            #expect(response.body == original, "\(file)")
        }
    }
}
#endif
