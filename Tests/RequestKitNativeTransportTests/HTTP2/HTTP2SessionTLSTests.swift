#if canImport(CNghttp2) && os(Linux)
import Foundation
import RequestKitTestSupport
import RequestKitTesting
import Testing

@testable import RequestKitHTTP2
@testable import RequestKitSockets

#if canImport(Glibc)
import Glibc
#endif

/// ALPN choosing HTTP/2, and ``HTTP2Session`` over ``TLSByteStream``, against nginx from Debian with `http2` on its
/// TLS listener (a free port of 127.0.0.1, the test certificates).
@Suite("HTTP/2 over TLS against nginx", .enabled(if: LocalNginx.isInstalled), .wallClock)
struct HTTP2SessionTLSTests {
    private static func startNginx() async throws -> LocalNginx {
        let nginx = try LocalNginx()
        let certificate = nginx.directory.appendingPathComponent("valid.pem")
        let key = nginx.directory.appendingPathComponent("valid-key.pem")
        try Data(TestCertificate.valid.certificatePEM.utf8).write(to: certificate)
        try Data(TestCertificate.valid.privateKeyPEM.utf8).write(to: key)
        try Data("over h2\n".utf8).write(to: nginx.root.appendingPathComponent("hello.txt"))
        try await nginx.start(
            directives: "ssl_certificate \(certificate.path); ssl_certificate_key \(key.path); access_log off;",
            listen: "ssl http2")
        return nginx
    }

    private static func configuration(offering protocols: [String]) -> TLSConfiguration {
        var configuration = TLSConfiguration(additionalRoots: [.data(Data(TestCertificate.authorityPEM.utf8))])
        configuration.applicationProtocols = protocols
        return configuration
    }

    @Test("Offering h2 and http/1.1, the server picks h2, and a request over it gets its file")
    func negotiatesHTTP2() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let port = nginx.port
        let configuration = Self.configuration(offering: ["h2", "http/1.1"])
        let (selected, status, body) = try await offThePool {
            try Self.get("/hello.txt", port: port, configuration: configuration)
        }
        #expect(selected == "h2")
        #expect(status == 200)
        #expect(body == Data("over h2\n".utf8))
    }

    @Test("Offering http/1.1 alone, the same server speaks HTTP/1.1")
    func offersHTTP1Only() async throws {
        let nginx = try await Self.startNginx()
        defer { nginx.stop() }
        let exchange = try await TLSStreamDriver.get(
            "/hello.txt", port: nginx.port, configuration: Self.configuration(offering: ["http/1.1"]))
        #expect(exchange.applicationProtocol == "http/1.1")
        #expect(exchange.statusLine == "HTTP/1.1 200 OK")
        #expect(exchange.body == Data("over h2\n".utf8))
    }

    @Test("An ALPN name that is too long is a configuration error, not a truncated offer")
    func invalidProtocolName() {
        let configuration = Self.configuration(offering: [String(repeating: "x", count: 256)])
        do {
            _ = try TLSContext(configuration: configuration)
            Issue.record("a 256-byte ALPN name was accepted")
        } catch {
            #expect("\(error)".contains("1 to 255 bytes, not 256"))
        }
    }

    /// GETs `path` over HTTP/2 on a TLS connection to `port`: the protocol ALPN selected, the status and the body.
    /// Blocks: run it off the cooperative pool.
    private static func get(
        _ path: String, port: Int, configuration: TLSConfiguration
    ) throws -> (String?, Int, Data) {
        let descriptor = try TLSStreamDriver.connect(port: port)
        let stream: TLSByteStream
        do {
            stream = try TLSByteStream(
                descriptor: descriptor, host: "127.0.0.1", port: port, configuration: configuration)
        } catch {
            _ = Glibc.close(descriptor)
            throw error
        }
        defer { stream.close() }
        _ = try TLSStreamDriver.drive(stream) { try stream.handshake() }
        let selected = stream.negotiatedApplicationProtocol
        guard selected == "h2" else { return (selected, 0, Data()) }
        let session = try HTTP2Session(settings: HTTP2Settings())
        let head = HTTP2RequestHead(
            method: "GET", scheme: "https", authority: "127.0.0.1:\(port)", path: path, headers: [:])
        let id = try session.request(head, body: nil)
        var status = 0
        var body = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let bytes = session.outgoing()
            var sent = 0
            while sent < bytes.count {
                sent += try TLSStreamDriver.drive(stream) {
                    try bytes.withUnsafeBytes { try stream.write(UnsafeRawBufferPointer(rebasing: $0[sent...])) }
                }
            }
            let count = try TLSStreamDriver.drive(stream) {
                try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
            }
            let outputs =
                count == 0
                ? session.receivedEnd()
                : buffer.withUnsafeBytes {
                    session.receive(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
                }
            for output in outputs {
                switch output {
                case .head(id, let code, _): status = code
                case .data(id, let piece):
                    body.append(piece)
                    session.consumed(piece.count, on: id)
                case .end(id): return (selected, status, body)
                case .failed(id, let failure): throw failure
                case .closed(let failure?): throw failure
                default: break
                }
            }
            if count == 0 { return (selected, status, body) }
        }
    }
}
#endif
